// When something happened, as people say it ("5 minutes ago"), the exact moment on hover and in the
// markup (<time datetime>) for those who want it.
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function ago(at: number, now = Date.now()): string {
  const elapsed = at - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(elapsed) >= size) return relative.format(Math.round(elapsed / size), unit);
  }
  return 'just now';
}

export function RelativeTime({ at, prefix = '' }: { at: number; prefix?: string }) {
  const date = new Date(at);
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {prefix}
      {ago(at)}
    </time>
  );
}
