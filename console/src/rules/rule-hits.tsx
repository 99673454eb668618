// How often a saved rule acted, as the runtimes reported it (GET /v1/rules/{ruleId}/hits): "acted 3 min
// ago · 1,204 times in 7 days", a small line of its last 30 days (an inline SVG: the console's policy
// allows no inline style or script, and an SVG's own attributes are neither), and the count by runtime.
import { useEffect, useState } from 'preact/hooks';
import type { paths } from '../api.js';
import { describeError, useApi } from '../session.js';
import { ago } from '../ui/relative-time.js';

type RuleHits =
  paths['/v1/rules/{ruleId}/hits']['get']['responses'][200]['content']['application/json']['data'];

const RUNTIMES: Record<string, string> = {
  proxy: 'proxy',
  extension: 'extension',
  playwright: 'Playwright',
  runtime: 'runtime',
};

const count = new Intl.NumberFormat('en');
const times = (n: number) => `${count.format(n)} ${n === 1 ? 'time' : 'times'}`;

/** The headline: when it last acted and how often in 7 days, or that no runtime saw it act. */
export function hitsLine(hits: RuleHits, now = Date.now()): string {
  if (hits.lastHitAt === null) return 'No runtime has reported this rule acting in the last 90 days.';
  // A runtime's clock a little ahead of this one's is still "just now", never "in 1 minute".
  return `Acted ${ago(Math.min(hits.lastHitAt, now), now)} · ${times(hits.total7Days)} in 7 days`;
}

/** The 30 days as a polyline in a 120 × 24 box, the highest day at the top. */
function Sparkline({ days }: { days: RuleHits['days'] }) {
  const width = 120;
  const height = 24;
  const highest = Math.max(1, ...days.map((day) => day.count));
  const step = days.length > 1 ? width / (days.length - 1) : width;
  const points = days
    .map(
      (day, i) =>
        `${(i * step).toFixed(1)},${(height - 1 - (day.count / highest) * (height - 2)).toFixed(1)}`,
    )
    .join(' ');
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  return (
    <svg
      class="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={`Hits per day from ${first} to ${last}: ${days.map((day) => day.count).join(', ')}`}
    >
      <polyline points={points} fill="none" stroke="currentColor" stroke-width="1.5" />
    </svg>
  );
}

export function RuleHitsPanel({ ruleId }: { ruleId: string }) {
  const api = useApi();
  const [hits, setHits] = useState<RuleHits | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api((client) => client.GET('/v1/rules/{ruleId}/hits', { params: { path: { ruleId } } }))
      .then((answer) => setHits(answer.data))
      .catch((failure) => setError(describeError(failure)));
  }, [api, ruleId]);

  if (error) return <p class="hits">Hits could not be read: {error}</p>;
  if (!hits) return null;
  return (
    <section class="hits" aria-label="Hits">
      <p>
        <span class="hits-line">{hitsLine(hits)}</span> <Sparkline days={hits.days} />
      </p>
      {hits.sources.length > 0 ? (
        <ul class="hits-sources">
          {hits.sources.map((source) => (
            <li key={source.source}>
              {RUNTIMES[source.source] ?? source.source}: {times(source.total7Days)} in 7 days,{' '}
              {count.format(source.total30Days)} in 30
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
