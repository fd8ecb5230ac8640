// The exhaustive check of a discriminated union: a `switch` whose default calls this stops compiling when a new
// variant is added and not handled. Reached at run time only through a bad cast, so it throws.
export function assertNever(value: never, what = "value"): never {
  throw new Error(`unexpected ${what} ${JSON.stringify(value)}`);
}
