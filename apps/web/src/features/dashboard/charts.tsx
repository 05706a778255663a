/** Hand-written SVG charts: small, accessible (a title and a data table for screen readers). */
import { useEffect, useRef, useState } from "react";

/**
 * The rendered width of an element in CSS pixels (`fallback` until measured, or where ResizeObserver is
 * missing): a chart drawn at its real width keeps its 11 px axis labels 11 px tall on a phone.
 */
function useWidth<T extends Element>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(([entry]) => {
      const measured = Math.round(entry?.contentRect.width ?? 0);
      if (measured > 0) setWidth(measured);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

export interface Series {
  name: string;
  /** CSS colour. */
  color: string;
  values: number[];
}

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const steps = [1, 2, 2.5, 5, 10];
  return (steps.find((s) => s * magnitude >= value) ?? 10) * magnitude;
}

/** Line chart of one or more series over shared x labels. */
export function LineChart({
  title,
  labels,
  series,
  format,
  formatLatest = format,
  height = 180,
}: {
  title: string;
  labels: string[];
  series: Series[];
  format(value: number): string;
  /** The legend's latest values (default: as the axis). */
  formatLatest?: (value: number) => string;
  height?: number;
}) {
  const [ref, width] = useWidth<HTMLElement>(600);
  const pad = { top: 12, right: 12, bottom: 24, left: 56 };
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const n = Math.max(1, labels.length - 1);
  const x = (i: number) => pad.left + (i / n) * (width - pad.left - pad.right);
  const y = (v: number) => pad.top + (1 - v / max) * (height - pad.top - pad.bottom);
  const ticks = [0, 0.5, 1].map((t) => t * max);
  return (
    <figure className="pg-chart" ref={ref}>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title}>
        <title>{title}</title>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.left} x2={width - pad.right} y1={y(t)} y2={y(t)} className="pg-grid-line" />
            <text x={pad.left - 6} y={y(t) + 4} textAnchor="end" className="pg-axis">
              {format(t)}
            </text>
          </g>
        ))}
        {labels.length > 0 ? (
          <>
            <text x={x(0)} y={height - 6} className="pg-axis">
              {labels[0]}
            </text>
            <text x={x(labels.length - 1)} y={height - 6} textAnchor="end" className="pg-axis">
              {labels[labels.length - 1]}
            </text>
          </>
        ) : null}
        {series.map((s) => (
          <polyline
            key={s.name}
            fill="none"
            stroke={s.color}
            strokeWidth={2}
            vectorEffect="non-scaling-stroke"
            points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(" ")}
          />
        ))}
      </svg>
      <figcaption className="pg-legend">
        {series.map((s) => (
          <span key={s.name} data-testid={`latest-${s.name.toLowerCase()}`}>
            <i style={{ background: s.color }} aria-hidden="true" /> {s.name}
            {s.values.length > 0 ? `: ${formatLatest(s.values[s.values.length - 1]!)}` : ""}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** Horizontal bars: one row per item, scaled to the largest. */
export function BarList({
  title,
  items,
  format,
}: {
  title: string;
  items: { label: string; value: number; title?: string }[];
  format(value: number): string;
}) {
  const max = Math.max(0, ...items.map((i) => i.value)) || 1;
  return (
    <figure className="pg-bars" aria-label={title}>
      <ul>
        {items.map((item) => (
          <li key={item.label} title={item.title}>
            <span className="pg-bar-label">{item.label}</span>
            <span className="pg-bar-track" aria-hidden="true">
              <span style={{ width: `${(item.value / max) * 100}%` }} />
            </span>
            <span className="pg-bar-value">{format(item.value)}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** Vertical bars over time (e.g. daily volume). */
export function ColumnChart({
  title,
  labels,
  values,
  format,
  height = 160,
}: {
  title: string;
  labels: string[];
  values: number[];
  format(value: number): string;
  height?: number;
}) {
  const width = 600;
  const max = niceMax(Math.max(0, ...values));
  const slot = width / Math.max(1, values.length);
  return (
    <figure className="pg-chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title} preserveAspectRatio="none">
        <title>{title}</title>
        {values.map((v, i) => {
          const h = (v / max) * (height - 20);
          return (
            <rect
              key={labels[i] ?? i}
              x={i * slot + slot * 0.15}
              y={height - 16 - h}
              width={slot * 0.7}
              height={Math.max(0, h)}
              rx={2}
              className="pg-column"
            >
              <title>{`${labels[i]}: ${format(v)}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="pg-axis-row muted pg-small">
        <span>{labels[0]}</span>
        <span>Peak {format(Math.max(0, ...values))}</span>
        <span>{labels[labels.length - 1]}</span>
      </figcaption>
    </figure>
  );
}
