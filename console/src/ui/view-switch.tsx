import { useSearchParams } from 'react-router';

/**
 * Which of two views of one thing a page shows, kept in the address as
 * `?view=<other>` (the first view is the default and leaves it out), so a
 * link or a reload opens the one a person was in.
 */
export function useViewParam<V extends string>(views: readonly [V, V]): [V, (next: V) => void] {
  const [params, setParams] = useSearchParams();
  const view = params.get('view') === views[1] ? views[1] : views[0];
  const setView = (next: V) =>
    setParams(
      (p) => {
        const out = new URLSearchParams(p);
        if (next === views[0]) out.delete('view');
        else out.set('view', next);
        return out;
      },
      { replace: true },
    );
  return [view, setView];
}

/** The switch between the views: tabs drawn as a segmented control, controlling the panel `controls` names. */
export function ViewSwitch<V extends string>({
  label,
  views,
  view,
  onChange,
  controls,
}: {
  label: string;
  views: ReadonlyArray<{ id: V; label: string }>;
  view: V;
  onChange(next: V): void;
  controls: string;
}) {
  return (
    <div role="tablist" aria-label={label} className="view-switch">
      {views.map((v) => (
        <button key={v.id} type="button" role="tab" aria-selected={view === v.id} aria-controls={controls} onClick={() => onChange(v.id)}>
          {v.label}
        </button>
      ))}
    </div>
  );
}
