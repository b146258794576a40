import { type ReactNode, useLayoutEffect, useRef, useState } from 'react';

/**
 * A box that scrolls sideways what is wider than the page (a table of many columns on a phone), so the page itself
 * never does. While it actually overflows it is a named region in the tab order, so the keyboard can scroll it too;
 * otherwise it is no stop at all.
 */
export function ScrollBox({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setOverflows(box.scrollWidth > box.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <div
      ref={ref}
      className={className ? `list-scroll ${className}` : 'list-scroll'}
      {...(overflows ? { tabIndex: 0, role: 'region', 'aria-label': label } : {})}
    >
      {children}
    </div>
  );
}
