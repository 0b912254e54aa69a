import type { ComponentChildren } from 'preact';

/** An in-app link: a real href (open in new tab works) that navigates without a reload. */
export function Link({
  to,
  children,
  class: className,
}: {
  to: string;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <a href={to || './'} data-route={to} class={className}>
      {children}
    </a>
  );
}
