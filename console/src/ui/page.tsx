import { type ReactNode, useEffect } from 'react';

interface Props {
  title: string;
  /** Buttons and links beside the title. */
  actions?: ReactNode;
  /** A line under the title (an id, a status). */
  subtitle?: ReactNode;
  children: ReactNode;
}

/** One page: its heading (also the document title, so history entries say where they lead), its actions, its content. */
export function Page({ title, actions, subtitle, children }: Props) {
  useEffect(() => {
    document.title = `${title} · Flowbase`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <div className="page-header">
        <div>
          <h1 id="page-title">{title}</h1>
          {subtitle && <div className="page-subtitle">{subtitle}</div>}
        </div>
        {actions && <div className="page-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}
