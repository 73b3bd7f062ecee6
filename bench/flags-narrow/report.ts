/** Writes the benchmark results as a Markdown table and an SVG chart of ratios. */

export interface ResultRow {
  readonly scenario: string;
  readonly rows: number;
  readonly oursMs: number;
  /** CPU time of this process for chat-realm (the machine may be shared). */
  readonly oursCpuMs: number;
  readonly floorMs: number;
  readonly floorCpuMs: number;
  readonly plainMs: number;
  /** At the same size (5000 rows: more than Zulip's clients ask for; shown, not used); null when not run. */
  readonly pgMs: number | null;
  /** chat-realm's timed and warm-up calls. */
  readonly calls: number;
  readonly warm: number;
}

/** chat-realm against PostgreSQL at one of Zulip's request sizes. */
export interface PgRow {
  readonly scenario: string;
  readonly rowsPerRequest: number;
  /** Rows processed (per request; the whole loop for mark-all). */
  readonly rows: number;
  readonly oursMs: number;
  readonly oursCpuMs: number;
  readonly pgMs: number | null;
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const ratio = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

export function markdownTable(rows: readonly ResultRow[]): string {
  const head =
    '| scenario | rows processed | chat-realm (ms) | chat-realm CPU (ms) | floor (c) (ms) | floor CPU (ms) | ours ÷ floor (wall) | ours ÷ floor (CPU) | plain JS (b) (ms) | plain ÷ ours | PostgreSQL at 5000 rows (shown, not used) (ms) |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';
  return (
    head +
    rows
      .map(
        (r) =>
          `| ${r.scenario} | ${r.rows} | ${fmt(r.oursMs)} | ${fmt(r.oursCpuMs)} | ${fmt(r.floorMs)} | ${fmt(r.floorCpuMs)} | ${ratio(r.oursMs / r.floorMs)}× | ${ratio(r.oursCpuMs / r.floorCpuMs)}× | ${fmt(r.plainMs)} | ${ratio(r.plainMs / r.oursMs)}× | ${r.pgMs === null ? 'n/a' : fmt(r.pgMs)} |`,
      )
      .join('\n')
  );
}

export function pgTable(rows: readonly PgRow[]): string {
  const head =
    '| scenario | rows per request | rows processed | chat-realm (ms) | chat-realm CPU (ms) | PostgreSQL (ms) | PostgreSQL ÷ ours |\n' +
    '|---|---:|---:|---:|---:|---:|---:|\n';
  return (
    head +
    rows
      .map(
        (r) =>
          `| ${r.scenario} | ${r.rowsPerRequest} | ${r.rows} | ${fmt(r.oursMs)} | ${fmt(r.oursCpuMs)} | ${r.pgMs === null ? 'n/a' : fmt(r.pgMs)} | ${r.pgMs === null ? 'n/a' : `${ratio(r.pgMs / r.oursMs)}×`} |`,
      )
      .join('\n')
  );
}

/** Horizontal bars on a log scale: ours÷floor, plain÷ours, PostgreSQL÷ours per scenario. */
export function ratioChart(rows: readonly ResultRow[]): string {
  const series = [
    {
      key: 'ours ÷ tight floor (lower is better)',
      color: '#4c78a8',
      value: (r: ResultRow) => r.oursMs / r.floorMs,
    },
    { key: 'plain JS ÷ ours', color: '#f58518', value: (r: ResultRow) => r.plainMs / r.oursMs },
  ];
  const left = 230;
  const width = 900;
  const barH = 12;
  const groupH = barH * series.length + 14;
  const top = 60;
  const height = top + rows.length * groupH + 40;
  const maxLog = 6; // 10^6
  const minLog = -1; // 0.1
  const x = (v: number) =>
    left + ((Math.log10(Math.max(v, 10 ** minLog)) - minLog) / (maxLog - minLog)) * (width - left - 60);
  const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;');
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${left}" y="18" font-size="14" font-weight="bold">POST /messages/flags/narrow — ratios (log scale), large preset, 5000-row windows</text>`,
  ];
  series.forEach((s, i) => {
    out.push(`<rect x="${left + i * 220}" y="30" width="10" height="10" fill="${s.color}"/>`);
    out.push(`<text x="${left + i * 220 + 14}" y="39">${esc(s.key)}</text>`);
  });
  for (let p = minLog; p <= maxLog; p++) {
    const gx = x(10 ** p);
    out.push(`<line x1="${gx}" y1="${top - 6}" x2="${gx}" y2="${height - 30}" stroke="#ddd"/>`);
    out.push(
      `<text x="${gx}" y="${height - 16}" text-anchor="middle">${p < 0 ? '0.1' : (10 ** p).toLocaleString('en-US')}×</text>`,
    );
  }
  rows.forEach((r, gi) => {
    const y0 = top + gi * groupH;
    out.push(
      `<text x="${left - 8}" y="${y0 + (barH * series.length) / 2 + 4}" text-anchor="end">${esc(r.scenario)}</text>`,
    );
    series.forEach((s, si) => {
      const v = s.value(r);
      const y = y0 + si * barH;
      if (v === null) {
        out.push(`<text x="${left + 4}" y="${y + barH - 2}" fill="#888">n/a</text>`);
        return;
      }
      out.push(
        `<rect x="${left}" y="${y}" width="${Math.max(1, x(v) - left)}" height="${barH - 2}" fill="${s.color}"/>`,
      );
      out.push(`<text x="${x(v) + 4}" y="${y + barH - 3}">${ratio(v)}×</text>`);
    });
  });
  out.push('</svg>');
  return out.join('\n');
}
