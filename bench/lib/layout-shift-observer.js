/* global window */
// Cumulative Layout Shift as Lighthouse and Chrome's web-vitals count it: layout-shift
// entries without recent input, grouped in session windows (a gap of 1 s or 5 s in all
// ends a window), the largest window's sum. Injected before the page loads
// (playwright addInitScript); window.__layoutShift() reads the figure and the shifts.
(() => {
  const shifts = [];
  let windows = [];
  let current = null;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.hadRecentInput) continue;
      const sources = (entry.sources || []).map((s) => {
        const node = s.node;
        const name =
          node && node.nodeType === 1
            ? node.tagName.toLowerCase() +
              (node.className ? '.' + String(node.className).split(' ').join('.') : '')
            : String(node && node.nodeName);
        return name;
      });
      shifts.push({ at: Math.round(entry.startTime), value: entry.value, sources });
      if (current && entry.startTime - current.last < 1000 && entry.startTime - current.first < 5000) {
        current.value += entry.value;
        current.last = entry.startTime;
      } else {
        current = { first: entry.startTime, last: entry.startTime, value: entry.value };
        windows.push(current);
      }
    }
  }).observe({ type: 'layout-shift', buffered: true });
  window.__layoutShift = () => ({
    cls: windows.reduce((max, w) => Math.max(max, w.value), 0),
    shifts,
  });
})();
