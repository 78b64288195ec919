// Where the server stops keeping up, said in one sentence with its evidence. Each level has already been judged
// from its steady window (sweep-level.ts): kept up, fell behind (success, achieved vs offered, or a --goodput
// SLO, with the numbers), or unclear (too few requests, or achieved too close to the line to tell). The knee is
// between the last level that kept up and the first that fell behind; when the levels cannot show that, the
// sentence says "not enough data" and why, instead of guessing.

import { diagnoseServer, type ServerBound } from '../server-metrics/server-verdict.js';
import { followEvidence, type SweepLevel } from './sweep-level.js';

export type KneeFinding = 'knee' | 'past-knee' | 'no-knee' | 'not-enough-data' | 'no-levels';

export interface Knee {
  finding: KneeFinding;
  /** Last level that kept up below the first that fell behind (or the top one, when none did). */
  lastGood: SweepLevel | undefined;
  firstBad: SweepLevel | undefined;
  /** Levels that could not tell, between lastGood and firstBad (or above lastGood). */
  unclear: SweepLevel[];
  sentence: string;
}

// A level by what it held fixed: its rate, or its concurrency (a concurrency sweep's levels all run at rate inf).
const rps = (level: SweepLevel): string =>
  level.concurrency === undefined
    ? `${level.offeredRps.toFixed(2)} req/s`
    : `concurrency ${level.concurrency}`;
const loadOf = (level: SweepLevel): number => level.concurrency ?? level.offeredRps;

function unclearNote(levels: readonly SweepLevel[]): string {
  return levels.map((l) => `at ${rps(l)} ${l.reason}`).join('; ');
}

export function findKnee(levels: readonly SweepLevel[]): Knee {
  const ordered = levels.filter((l) => Number.isFinite(loadOf(l))).sort((a, b) => loadOf(a) - loadOf(b));
  const badAt = ordered.findIndex((l) => l.status === 'fell-behind');
  const below = badAt === -1 ? ordered : ordered.slice(0, badAt);
  const goodAt = below.map((l) => l.status).lastIndexOf('kept-up');
  const lastGood = goodAt === -1 ? undefined : below[goodAt];
  const firstBad = badAt === -1 ? undefined : ordered[badAt];
  const unclear = below.slice(goodAt + 1);
  const knee = (finding: KneeFinding, sentence: string): Knee => ({
    finding,
    lastGood,
    firstBad,
    unclear,
    sentence,
  });

  if (ordered.length === 0) return knee('no-levels', 'No rate level ran, so there is no knee to report.');
  // What the sentences call the levels: their rates, or their concurrencies.
  const [one, many] =
    ordered[0]?.concurrency === undefined ? ['rate', 'rates'] : ['concurrency', 'concurrencies'];
  if (firstBad !== undefined && lastGood !== undefined) {
    const between = unclear.length === 0 ? '' : ` (between them, ${unclearNote(unclear)})`;
    return knee(
      'knee',
      `The knee lies between ${rps(lastGood)} and ${rps(firstBad)}: at ${rps(lastGood)} it kept up, ` +
        `${followEvidence(lastGood)}; at ${rps(firstBad)} ${firstBad.reason}${between}. ` +
        `Plan for at most about ${lastGood.achievedRps.toFixed(2)} req/s.`,
    );
  }
  if (firstBad !== undefined) {
    return unclear.length === 0
      ? knee(
          'past-knee',
          `The server was already past its knee at the lowest ${one}, ${rps(firstBad)}: ${firstBad.reason}; sweep lower ${many}.`,
        )
      : knee(
          'not-enough-data',
          `Not enough data to place the knee: at ${rps(firstBad)} ${firstBad.reason}, and no level below ` +
            `showed the server keeping up (${unclearNote(unclear)}); sweep lower ${many} or run longer levels.`,
        );
  }
  if (lastGood === undefined) {
    return knee(
      'not-enough-data',
      `Not enough data: no level showed the server keeping up or falling behind (${unclearNote(unclear)}); run longer levels.`,
    );
  }
  if (unclear.length > 0) {
    return knee(
      'not-enough-data',
      `Not enough data to say where the knee is: the server kept up to ${rps(lastGood)}, ` +
        `${followEvidence(lastGood)}; but ${unclearNote(unclear)}; run longer levels or more ${many} around it.`,
    );
  }
  if (lastGood.concurrency !== undefined) {
    // A closed loop is sent only what it completes, so the follow rule cannot break: say what can.
    return knee(
      'no-knee',
      `No knee by the follow rule: at every concurrency up to ${rps(lastGood)} the server completed what it ` +
        'was sent (a concurrency level sends a request only when one finishes, so it falls behind only on ' +
        'success or --goodput); the throughput limit is where the achieved rate stops growing with the ' +
        'concurrency, and --slo EXPR --search concurrency finds the highest concurrency within an SLO.',
    );
  }
  return knee(
    'no-knee',
    `No knee: the server kept up with every ${one} up to ${rps(lastGood)}, ${followEvidence(lastGood)}; ` +
      `sweep higher ${many} to find it.`,
  );
}

// ---- Why the knee is where it is ----
// Why the knee is where it is, when the levels read the server's metrics: the first level that fell behind (or
// the lowest, past the knee) diagnosed by loadgen/server-metrics/server-verdict.ts, beside the last level that
// kept up, so the sentence shows what changed across the knee and names the vLLM setting to move it.

export interface KneeCause {
  readonly bound: ServerBound;
  readonly sentence: string;
}

// The offered rate, whichever parameter the sweep moved (the diagnosis is of what the server was sent).
const offeredText = (rate: number): string => `${rate.toFixed(2)} req/s`;

export function kneeCause(knee: Knee): KneeCause | null {
  const bad = knee.firstBad;
  if (bad?.server == null) return null;
  const diagnosis = diagnoseServer(bad.server, bad.clientTtft ?? null);
  const good = knee.lastGood?.server;
  const below =
    good == null || knee.lastGood === undefined
      ? ''
      : ` At ${offeredText(knee.lastGood.offeredRps)} KV cache usage peaked at ${
          good.peakKvUsage === null ? 'an unexported level' : `${(good.peakKvUsage * 100).toFixed(1)}%`
        }, with ${good.preemptions ?? 0} preemptions and at most ${good.maxWaiting ?? 0} requests waiting.`;
  return {
    bound: diagnosis.bound,
    sentence: `Why: at ${offeredText(bad.offeredRps)}, where it fell behind, the server was ${diagnosis.sentence}.${below}`,
  };
}
