// How the bench prints an error it caught: one line, its causes included.

/**
 * `Name: message (cause: …)` of an error and up to three causes (a cause whose message the
 * line already holds is skipped), at most 500 characters.
 */
export function describe(error) {
  if (!(error instanceof Error)) return String(error).slice(0, 500);
  let text = `${error.name}: ${error.message}`;
  for (let cause = error.cause, depth = 0; cause instanceof Error && depth < 3; depth++) {
    if (!text.includes(cause.message)) text += ` (cause: ${cause.message})`;
    cause = cause.cause;
  }
  return text.slice(0, 500);
}
