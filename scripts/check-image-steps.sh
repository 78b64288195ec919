#!/usr/bin/env bash
# Runs what the Dockerfile and compose.yaml run, without Docker (no engine on the build machines):
#   build stage  a clean copy of what it copies, `npm ci --ignore-scripts`, `tsc`
#   final stage  a clean copy of what it copies, `npm ci --omit=dev --ignore-scripts`, the build's dist/
#   run          the simulator and the default command (`tokenmeter serve`) with compose's environment and
#                the mounted config file, then the image's own HEALTHCHECK command, /readyz, one request
#                through, /metrics and the records file.
# Slow (two npm installs from the registry), so a script rather than a test: `scripts/check-image-steps.sh`.
# test/observability/packaging.test.ts checks that the COPY lists below match the Dockerfile's.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/tokenmeter-image-steps.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Keep in step with the Dockerfile's COPY lines (packaging.test.ts compares them).
BUILD_COPIES=(package.json package-lock.json tsconfig.json src plugins loadgen)
FINAL_COPIES=(package.json package-lock.json bin loadgen/data)

copy_into() {
  local dest="$1"
  shift
  mkdir -p "$dest"
  for path in "$@"; do
    mkdir -p "$dest/$(dirname "$path")"
    cp -R "$repo/$path" "$dest/$path"
  done
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

step() { printf '\n== %s\n' "$*"; }

step "build stage: clean copy (${BUILD_COPIES[*]}), npm ci --ignore-scripts, tsc"
copy_into "$work/build" "${BUILD_COPIES[@]}"
(cd "$work/build" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && npx tsc -p tsconfig.json)
echo "compiled: $(find "$work/build/dist" -name '*.js' | wc -l) files"

step "final stage: clean copy (${FINAL_COPIES[*]}), npm ci --omit=dev --ignore-scripts, dist/ from the build"
copy_into "$work/app" "${FINAL_COPIES[@]}"
(cd "$work/app" && NODE_ENV=production npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
cp -R "$work/build/dist" "$work/app/dist"
echo "node_modules: $(du -sh "$work/app/node_modules" | cut -f1), packages: $(ls "$work/app/node_modules" | wc -l)"
if [ -e "$work/app/node_modules/typescript" ]; then echo "FAIL: a dev dependency reached the final stage"; exit 1; fi

step "run: the simulator (compose's sim command) and the default command, configured like compose's gateway"
sim_port="$(free_port)"
gateway_port="$(free_port)"
mkdir -p "$work/data"
sed -e "s#http://sim:8000#http://127.0.0.1:${sim_port}#" -e "s#/data/requests.jsonl#${work}/data/requests.jsonl#" \
  "$repo/deploy/gateway.config.json" > "$work/config.json"
(cd "$work/app" && exec node "$work/app/bin/tokenmeter.js" sim --host 127.0.0.1 --port "$sim_port") > "$work/sim.log" 2>&1 &
pids+=("$!")
(cd "$work/app" && NODE_ENV=production TOKENMETER_CONFIG="$work/config.json" TOKENMETER_HOST=0.0.0.0 \
  TOKENMETER_PORT="$gateway_port" TOKENMETER_LOG_LEVEL=info exec node "$work/app/bin/tokenmeter.js" serve) \
  > "$work/gateway.log" 2>&1 &
pids+=("$!")

step "the image's HEALTHCHECK command, as written in the Dockerfile"
probe="$(node -e "
  const text = require('fs').readFileSync(process.argv[1], 'utf8').replace(/\\\\\n/g, ' ');
  const line = text.split('\n').find((l) => l.startsWith('HEALTHCHECK'));
  const argv = JSON.parse(line.slice(line.indexOf('CMD') + 3).trim());
  if (argv[0] !== 'node' || argv[1] !== '-e') throw new Error('unexpected HEALTHCHECK: ' + line);
  console.log(argv[2]);
" "$repo/Dockerfile")"
echo "probe: node -e \"$probe\""
healthy=""
for _ in $(seq 1 50); do
  if (cd "$work/app" && TOKENMETER_PORT="$gateway_port" node -e "$probe"); then healthy=yes; break; fi
  sleep 0.2
done
if [ -z "$healthy" ]; then echo "FAIL: health check never passed"; cat "$work/gateway.log"; exit 1; fi
echo "healthy: exit 0"

step "readiness, one request through the gateway, metrics, records"
GATEWAY="http://127.0.0.1:${gateway_port}" node -e "
  const base = process.env.GATEWAY;
  const main = async () => {
    const ready = await fetch(base + '/readyz');
    console.log('/readyz', ready.status, await ready.text());
    if (!ready.ok) throw new Error('not ready');
    const res = await fetch(base + '/v1/chat/completions', {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tokenmeter/sim-7b', stream: true, max_tokens: 8,
        messages: [{ role: 'user', content: 'hello' }] }) });
    const body = await res.text();
    console.log('POST /v1/chat/completions', res.status, body.split('\n\n').filter(Boolean).length, 'SSE events');
    if (res.status !== 200) throw new Error(body);
    const metrics = await (await fetch(base + '/metrics')).text();
    const line = metrics.split('\n').find((l) => l.startsWith('tokenmeter_requests_total{'));
    console.log('/metrics:', line);
    if (!line) throw new Error('no request counted');
  };
  main().catch((e) => { console.error('FAIL:', e.message); process.exit(1); });
"
for _ in $(seq 1 25); do [ -s "$work/data/requests.jsonl" ] && break; sleep 0.2; done
echo "records file: $(wc -l < "$work/data/requests.jsonl") line(s), outcome $(node -e "
  const l = require('fs').readFileSync(process.argv[1], 'utf8').trim().split('\n').pop();
  console.log(JSON.parse(l).outcome)" "$work/data/requests.jsonl")"
echo "gateway log: $(head -c 300 "$work/gateway.log")"

step "OK: the image's steps build, install without dev dependencies, start, and pass their health check"
