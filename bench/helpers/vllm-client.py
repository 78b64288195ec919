# vLLM's own client for bench/loadgen-footprint.ts: the request function of a vLLM checkout
# (vllm/benchmarks/lib/endpoint_request_func.py, imported from the folder --vllm-src names; none of vLLM's code is
# in this repository) driven the way `vllm bench serve` drives it (serve.py's benchmark() at the pinned commit
# 009e6d4a): one aiohttp session whose connector allows --concurrency connections, every request created as a task
# up front behind one semaphore, all gathered, then the summary figures computed with numpy over the outputs as
# serve.py's calculate_metrics does. serve.py itself is not run: it imports vLLM's tokenizer and dataset modules
# (transformers), which a load generator's footprint should not be charged for, and which Debian does not package.
# Prompts are random words, one token each (the built-in tokenizer's rule, as in test/loadgen/fixtures/vllm-009e6d4a).
#
#   python3 bench/helpers/vllm-client.py --vllm-src DIR --url URL --requests N --concurrency C
#       --input-len 64 --output-len 32 --prefix ID- --ttfts-out FILE
#
# Writes one line per successful request to --ttfts-out: "<request id> <ttft in ms>", after the run.
import argparse
import asyncio
import os
import random
import sys
import time

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--vllm-src", default=os.environ.get("VLLM_SRC"))
parser.add_argument("--url", required=True)
parser.add_argument("--requests", type=int, default=1000)
parser.add_argument("--concurrency", type=int, default=64)
parser.add_argument("--input-len", type=int, default=64)
parser.add_argument("--output-len", type=int, default=32)
parser.add_argument("--prefix", default="vllm-")
parser.add_argument("--model", default="tokenmeter/sim-7b")
parser.add_argument("--ttfts-out")
args = parser.parse_args()
if not args.vllm_src:
    sys.exit("--vllm-src (or VLLM_SRC): a vLLM checkout holding vllm/benchmarks/lib/endpoint_request_func.py")
sys.path.insert(0, os.path.join(args.vllm_src, "vllm", "benchmarks", "lib"))

import aiohttp  # noqa: E402
from endpoint_request_func import RequestFuncInput, async_request_openai_completions  # noqa: E402

WORDS = ["the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on", "not"]


async def main() -> None:
    rng = random.Random(0)
    api_url = args.url.rstrip("/") + "/v1/completions"
    inputs = [
        RequestFuncInput(
            prompt=" ".join(rng.choice(WORDS) for _ in range(args.input_len)),
            api_url=api_url,
            prompt_len=args.input_len,
            output_len=args.output_len,
            model=args.model,
            ignore_eos=True,
            request_id=f"{args.prefix}{i}",
        )
        for i in range(args.requests)
    ]
    # serve.py's connector and session, as benchmark() builds them.
    connector = aiohttp.TCPConnector(
        limit=args.concurrency,
        limit_per_host=args.concurrency,
        ttl_dns_cache=300,
        use_dns_cache=True,
        keepalive_timeout=60,
        enable_cleanup_closed=True,
        force_close=False,
        ssl=False,
    )
    session = aiohttp.ClientSession(
        connector=connector, trust_env=True, timeout=aiohttp.ClientTimeout(total=6 * 60 * 60)
    )
    semaphore = asyncio.Semaphore(args.concurrency)

    async def limited(request_input: RequestFuncInput):
        async with semaphore:
            return await async_request_openai_completions(request_func_input=request_input, session=session)

    start = time.perf_counter()
    tasks = [asyncio.create_task(limited(i)) for i in inputs]
    outputs = await asyncio.gather(*tasks)
    duration = time.perf_counter() - start
    await session.close()

    # calculate_metrics' share: the per-request lists, then numpy's figures over them.
    ok = [o for o in outputs if o.success]
    ttfts = [o.ttft for o in ok]
    itls = [g for o in ok for g in o.itl]
    tpots = [(o.latency - o.ttft) / (o.output_tokens - 1) for o in ok if o.output_tokens > 1]
    e2els = [o.latency for o in ok]
    for values in (ttfts, itls, tpots, e2els):
        _ = (np.mean(values or 0), np.std(values or 0), np.median(values or 0))
        _ = [np.percentile(values or 0, p) for p in (50, 90, 99)]
    print(f"ok {len(ok)} failed {len(outputs) - len(ok)} duration {duration:.2f} s")
    if args.ttfts_out:
        with open(args.ttfts_out, "w") as out:
            for request_input, o in zip(inputs, outputs):
                if o.success:
                    out.write(f"{request_input.request_id} {o.ttft * 1000:.3f}\n")


asyncio.run(main())
