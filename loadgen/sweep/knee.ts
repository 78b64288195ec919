// Where the server stops keeping up, said in one sentence. A level is past the knee when the achieved rate falls
// below FOLLOW_RATIO of the offered one (requests pile up instead of completing as fast as they arrive), or, with
// --goodput, when fewer than SLO_ATTAINMENT of its requests meet every SLO.

import type { SweepLevel } from './sweep-level.js';

export const FOLLOW_RATIO = 0.9;
export const SLO_ATTAINMENT = 0.9;

export interface Knee {
  /** Last level that kept up, and first that did not (undefined when none / all did). */
  lastGood: SweepLevel | undefined;
  firstBad: SweepLevel | undefined;
  sentence: string;
}

function brokenBy(level: SweepLevel): string | undefined {
  const offered = Math.min(level.offeredRps, level.sentRps);
  if (level.successRate < SLO_ATTAINMENT)
    return `only ${(level.successRate * 100).toFixed(0)}% of requests succeeded`;
  if (level.achievedRps < FOLLOW_RATIO * offered) {
    return `it completed ${level.achievedRps.toFixed(2)} req/s of the ${offered.toFixed(2)} req/s offered`;
  }
  if (level.sloAttainment !== null && level.sloAttainment < SLO_ATTAINMENT) {
    return `only ${(level.sloAttainment * 100).toFixed(0)}% of requests met the --goodput SLOs`;
  }
  return undefined;
}

const rps = (level: SweepLevel): string => `${level.offeredRps.toFixed(2)} req/s`;

export function findKnee(levels: readonly SweepLevel[]): Knee {
  const ordered = levels
    .filter((l) => Number.isFinite(l.offeredRps))
    .sort((a, b) => a.offeredRps - b.offeredRps);
  let lastGood: SweepLevel | undefined;
  for (const level of ordered) {
    const why = brokenBy(level);
    if (why === undefined) {
      lastGood = level;
      continue;
    }
    const sentence =
      lastGood === undefined
        ? `The server was already past its knee at the lowest rate, ${rps(level)}: ${why}; sweep lower rates.`
        : `The knee lies between ${rps(lastGood)} and ${rps(level)}: at ${rps(level)} ${why}, so plan for at most about ${lastGood.achievedRps.toFixed(2)} req/s.`;
    return { lastGood, firstBad: level, sentence };
  }
  const top = ordered[ordered.length - 1];
  return {
    lastGood: top,
    firstBad: undefined,
    sentence:
      top === undefined
        ? 'No rate level ran, so there is no knee to report.'
        : `No knee: the server kept up with every rate up to ${rps(top)}; sweep higher rates to find it.`,
  };
}
