import { type FormEvent, useId, useMemo, useState } from 'react';
import { renderMarkdown } from '@charts/markdown';
import { ErrorBox } from '../../ui/error-box';

/**
 * A text tile's Markdown as HTML. renderMarkdown (src/dashboards/charts/markdown.ts, shared with the report PDF)
 * turns raw HTML off and keeps only http(s), mailto and relative links, so its output is safe to put on the page.
 */
export function TextBody({ markdown, label }: { markdown: string; label: string }) {
  const html = useMemo(() => renderMarkdown(markdown), [markdown]);
  if (!markdown.trim()) return <p className="tile-status muted">No text yet.</p>;
  return <div className="tile-text markdown" role="region" aria-label={label} tabIndex={0} dangerouslySetInnerHTML={{ __html: html }} />;
}

interface EditorProps {
  heading: string;
  initialTitle: string;
  initialMarkdown: string;
  saveLabel: string;
  onSave(value: { title: string; markdown: string }): Promise<void>;
  onCancel(): void;
}

/** The form that writes a text tile: its title and Markdown, with the tile's rendering beside it as it will show. */
export function TextTileEditor({ heading, initialTitle, initialMarkdown, saveLabel, onSave, onCancel }: EditorProps) {
  const [title, setTitle] = useState(initialTitle);
  const [markdown, setMarkdown] = useState(initialMarkdown);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const ids = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      await onSave({ title: title.trim(), markdown });
    } catch (err) {
      setError(err);
      setSaving(false);
    }
  };

  return (
    <form className="panel-form text-editor" onSubmit={(e) => void submit(e)} aria-labelledby={`${ids}-heading`}>
      <h2 id={`${ids}-heading`}>{heading}</h2>
      <ErrorBox error={error} />
      <div className="field">
        <label htmlFor={`${ids}-title`}>Tile title</label>
        <input id={`${ids}-title`} required maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
      </div>
      <div className="text-editor-panes">
        <div className="field grow">
          <label htmlFor={`${ids}-markdown`}>Text (Markdown)</label>
          <textarea
            id={`${ids}-markdown`}
            rows={10}
            maxLength={15_000}
            value={markdown}
            onChange={(e) => setMarkdown(e.target.value)}
            aria-describedby={`${ids}-help`}
          />
          <p id={`${ids}-help`} className="muted">
            Headings (#), **bold**, _italic_, lists and [links](https://example.com). HTML and images are not shown.
          </p>
        </div>
        <section className="field grow text-preview" aria-labelledby={`${ids}-preview`}>
          <h3 id={`${ids}-preview`}>Preview</h3>
          <TextBody markdown={markdown} label="Preview of the text" />
        </section>
      </div>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={saving}>
          {saving ? 'Saving…' : saveLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
