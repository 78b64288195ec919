// Freezes a plain value and everything it holds (objects and arrays), so that what is handed around cannot be
// changed by whoever holds it: the gateway's configuration once resolved, and each finished request's record as
// its sinks receive it. A frozen part is taken as frozen throughout, so shared parts are walked once.

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
