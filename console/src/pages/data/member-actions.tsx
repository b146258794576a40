import { useState } from 'react';
import { del } from '../../api/client';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';

interface Props {
  /** The field's name, in the buttons' accessible names. */
  name: string;
  /** Its DELETE route. */
  path: string;
  onEdit(): void;
  onDeleted(): void;
}

/** Edit and Delete (confirmed: widgets using it will match nothing) of a source's calculated field or window dimension. */
export function MemberActions({ name, path, onEdit, onDeleted }: Props) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<unknown>();
  async function remove() {
    try {
      await del(path);
      onDeleted();
    } catch (e) {
      setError(e);
    }
  }
  return (
    <td className="row-actions">
      {confirming ? (
        <ConfirmPrompt
          question="Widgets using it will match nothing."
          confirmLabel={`Delete ${name}`}
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        <>
          <button type="button" className="link-button" aria-label={`Edit ${name}`} onClick={onEdit}>
            Edit
          </button>{' '}
          <button type="button" className="link-button" aria-label={`Delete ${name}`} onClick={() => setConfirming(true)}>
            Delete
          </button>
        </>
      )}
      <ErrorBox error={error} />
    </td>
  );
}
