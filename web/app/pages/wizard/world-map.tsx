import { useRef, useState } from 'preact/hooks';
import { fromXY, graticule, graticuleStep, toXY, viewBox, ZOOMS } from './geo';
import { LAND_PATH } from './land';

/**
 * A small built-in world map to place the site by clicking: land outlines
 * bundled with the app (no map tiles: the CSP allows only our own origin, and
 * the service proxies none), a graticule and a marker. Zoom buttons narrow the
 * window around the marker; with the keyboard, arrow keys move the marker.
 */
export function WorldMap(props: {
  point: { lat: number; lon: number } | null;
  onPick: (lat: number, lon: number) => void;
}) {
  const [zoom, setZoom] = useState<number>(1);
  const svgRef = useRef<SVGSVGElement>(null);
  const box = viewBox(zoom, props.point);
  const step = graticuleStep(zoom);
  const lines = graticule(box, step);
  const marker = props.point ? toXY(props.point.lat, props.point.lon) : null;
  const unit = box.w / 360; // one screen-independent stroke unit at this zoom

  const pick = (event: MouseEvent) => {
    const svg = svgRef.current;
    if (!svg) return;
    const rect = svg.getBoundingClientRect();
    const x = box.x + ((event.clientX - rect.left) / rect.width) * box.w;
    const y = box.y + ((event.clientY - rect.top) / rect.height) * box.h;
    const { lat, lon } = fromXY(x, y, zoom >= 8 ? 4 : zoom >= 2 ? 3 : 2);
    props.onPick(lat, lon);
  };

  const nudge = (event: KeyboardEvent) => {
    const moves: Record<string, [number, number]> = {
      ArrowUp: [1, 0],
      ArrowDown: [-1, 0],
      ArrowLeft: [0, -1],
      ArrowRight: [0, 1],
    };
    const move = moves[event.key];
    if (!move) return;
    event.preventDefault();
    const delta = step / 2;
    const lat = Math.max(-90, Math.min(90, (props.point?.lat ?? 0) + move[0] * delta));
    const lon = Math.max(-180, Math.min(180, (props.point?.lon ?? 0) + move[1] * delta));
    props.onPick(Math.round(lat * 1000) / 1000, Math.round(lon * 1000) / 1000);
  };

  const index = ZOOMS.indexOf(zoom as (typeof ZOOMS)[number]);
  return (
    <div class="wz-map">
      <div
        class="wz-map-frame"
        role="group"
        aria-label="World map: click to place your site, or use the arrow keys"
        tabIndex={0}
        onKeyDown={nudge}
      >
        <svg
          ref={svgRef}
          viewBox={`${box.x} ${box.y} ${box.w} ${box.h}`}
          preserveAspectRatio="none"
          aria-hidden="true"
          onClick={pick}
        >
          <rect class="wz-sea" x={0} y={0} width={360} height={180} />
          <path class="wz-land" d={LAND_PATH} stroke-width={0.6 * unit} />
          {lines.lons.map((lon) => (
            <line
              key={`x${lon}`}
              class={lon === 0 ? 'wz-grid wz-grid-main' : 'wz-grid'}
              x1={lon + 180}
              x2={lon + 180}
              y1={box.y}
              y2={box.y + box.h}
              stroke-width={0.5 * unit}
            />
          ))}
          {lines.lats.map((lat) => (
            <line
              key={`y${lat}`}
              class={lat === 0 ? 'wz-grid wz-grid-main' : 'wz-grid'}
              x1={box.x}
              x2={box.x + box.w}
              y1={90 - lat}
              y2={90 - lat}
              stroke-width={0.5 * unit}
            />
          ))}
          {marker && (
            <g class="wz-marker">
              <circle cx={marker.x} cy={marker.y} r={7 * unit} class="wz-marker-halo" />
              <circle cx={marker.x} cy={marker.y} r={3.2 * unit} stroke-width={1.4 * unit} />
            </g>
          )}
        </svg>
      </div>
      <div class="row wz-map-tools">
        <button
          type="button"
          onClick={() => setZoom(ZOOMS[index + 1] ?? zoom)}
          disabled={index >= ZOOMS.length - 1}
        >
          Zoom in
        </button>
        <button type="button" onClick={() => setZoom(ZOOMS[index - 1] ?? zoom)} disabled={index <= 0}>
          Zoom out
        </button>
        <span class="muted wz-map-hint">
          {zoom}× · grid every {step}°
        </span>
      </div>
    </div>
  );
}
