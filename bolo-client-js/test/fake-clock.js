// Time that moves only when the client pauses: each pause is recorded and passes at once.

import {Cancelled} from '../src/policy.js';

/** 2026-11-30T12:00:00Z, as the Java SDK's tests start. */
export const START_WALL_MS = Date.UTC(2026, 10, 30, 12, 0, 0);

/**
 * @param {{duringPause?: (index: number) => void}} [hooks] runs at the start of each pause (a
 *     cancel arriving mid-pause, say)
 */
export function fakeClock(hooks = {}) {
  let elapsed = 0;
  const pauses = [];
  return {
    pauses,
    advance(ms) {
      elapsed += ms;
    },
    clock: {
      now: () => elapsed,
      wallTime: () => START_WALL_MS + elapsed,
      async sleep(ms, signal) {
        pauses.push(ms);
        hooks.duringPause?.(pauses.length);
        if (signal.aborted) {
          throw new Cancelled();
        }
        elapsed += ms;
      },
    },
  };
}
