// A message for the next screen ("Rule deleted."), said once by whichever screen shows next.
let pending: string | null = null;

export function flash(message: string): void {
  pending = message;
}

export function takeFlash(): string | null {
  const message = pending;
  pending = null;
  return message;
}
