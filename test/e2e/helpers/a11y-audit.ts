/**
 * Runs in the page (page.evaluate takes it as source text: the test project
 * has no DOM types): the accessibility basics every page must meet. Returns
 * one line per problem: a visible form control without a label, a button or
 * link without a name, an image without alt text, not exactly one h1.
 */
export const A11Y_AUDIT = `(() => {
  const problems = [];
  const visible = (el) => el.offsetParent !== null || el.getClientRects().length > 0;
  for (const el of document.querySelectorAll('input, select, textarea')) {
    if (el.type === 'hidden' || !visible(el)) continue;
    const named = (el.labels && el.labels.length > 0) || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
    if (!named) problems.push('unlabelled ' + el.tagName.toLowerCase() + ' ' + (el.name || el.id || ''));
  }
  for (const el of document.querySelectorAll('button, a[href]')) {
    if (!visible(el)) continue;
    const name = (el.textContent || '').trim() || el.getAttribute('aria-label') || el.getAttribute('title') || el.querySelector('img[alt]:not([alt=""])');
    if (!name) problems.push('nameless ' + el.tagName.toLowerCase() + ' ' + el.outerHTML.slice(0, 80));
  }
  for (const img of document.querySelectorAll('img')) {
    if (!img.hasAttribute('alt')) problems.push('img without alt ' + img.src);
  }
  const h1 = document.querySelectorAll('h1').length;
  if (h1 !== 1) problems.push(h1 + ' h1 elements');
  return problems;
})()`;
