import { type FormEvent, useState } from 'react';
import { del, get, patch } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { formatTime } from '../../ui/format';
import { JsonView } from '../../ui/json-view';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import { ConnectionCreate } from './connection-create';
import { ConnectionEdit } from './connection-edit';
import { SettingsTabs } from './settings-tabs';
import type { Connection, ConnectionList, ConnectionTypes } from './settings-types';

const LIST = '/connections?limit=1000';

/**
 * Connections by name and type. Their config never appears in the list: "Reveal
 * config" fetches one connection's decrypted config into that row, and "Hide"
 * drops it from memory. "Edit" changes the name and config without reading any
 * secret (connection-edit.tsx).
 */
export function ConnectionsPage() {
  const { can, session } = useSession();
  const mayView = can('secrets:view');
  const connections = useApi(mayView ? LIST : null, (signal) => get<ConnectionList>(LIST, { signal }));
  const types = useApi(can('secrets:admin') ? '/connections/types/list' : null, (signal) => get<ConnectionTypes>('/connections/types/list', { signal }));
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Connection>();
  // Only one connection's config is ever held, and only while it is shown.
  const [revealed, setRevealed] = useState<{ id: string; config: unknown }>();

  return (
    <Page
      title="Connections"
      subtitle="Encrypted credentials that steps and data feeds use by name"
      actions={
        can('secrets:admin') && !creating ? (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setEditing(undefined);
              setCreating(true);
            }}
          >
            New connection
          </button>
        ) : undefined
      }
    >
      <SettingsTabs />
      {!mayView && (
        <p className="notice" role="note">
          Your role ({session.role}) cannot see connections: seeing them includes reading their credentials, which needs the secrets:view permission. Ask an
          owner or an admin.
        </p>
      )}
      {creating && !types.data && !types.error && <p className="page-status">Loading connection types…</p>}
      {creating && types.data && (
        <ConnectionCreate
          types={types.data.types}
          onCancel={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            connections.reload();
          }}
        />
      )}
      {editing && (
        <ConnectionEdit
          key={editing.id}
          connection={editing}
          onCancel={() => setEditing(undefined)}
          onSaved={() => {
            setEditing(undefined);
            // A revealed config would be stale now.
            if (revealed?.id === editing.id) setRevealed(undefined);
            connections.reload();
          }}
        />
      )}
      <ErrorBox error={types.error} />
      <ListView
        state={connections}
        items={connections.data?.data}
        loadingText="Loading connections…"
        empty="No connections yet."
        className="connections"
        columns={[{ label: 'Name' }, { label: 'Type' }, { label: 'Created' }, { label: 'Updated' }, { label: 'Actions', hidden: true }]}
        rowKey={(c) => c.id}
        row={(c) => (
          <ConnectionRow
            connection={c}
            canAdmin={can('secrets:admin')}
            config={revealed?.id === c.id ? revealed.config : undefined}
            onReveal={(config) => setRevealed({ id: c.id, config })}
            onHide={() => setRevealed(undefined)}
            onEdit={() => {
              setCreating(false);
              setEditing(c);
            }}
            onChanged={connections.reload}
          />
        )}
      />
    </Page>
  );
}

interface RowProps {
  connection: Connection;
  canAdmin: boolean;
  config: unknown;
  onReveal(config: unknown): void;
  onHide(): void;
  onEdit(): void;
  onChanged(): void;
}

function ConnectionRow({ connection: c, canAdmin, config, onReveal, onHide, onEdit, onChanged }: RowProps) {
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const [name, setName] = useState(c.name);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const reveal = () => run(async () => onReveal(await get<unknown>(`/connections/${c.id}/config`)));
  function rename(event: FormEvent) {
    event.preventDefault();
    void run(async () => {
      await patch(`/connections/${c.id}`, { name });
      setMode('view');
      onChanged();
    });
  }
  const remove = () =>
    run(async () => {
      await del(`/connections/${c.id}`);
      onHide();
      onChanged();
    });

  return (
    <>
      <tr>
        <th scope="row" className="plain-row-header">
          {mode === 'rename' ? (
            <form className="inline-form" onSubmit={rename}>
              <label htmlFor={`rename-${c.id}`} className="visually-hidden">
                New name for {c.name}
              </label>
              <input id={`rename-${c.id}`} value={name} onChange={(e) => setName(e.target.value)} required />
              <button type="submit" className="primary" disabled={busy}>
                Save
              </button>
              <button type="button" onClick={() => setMode('view')}>
                Cancel
              </button>
            </form>
          ) : (
            <code>{c.name}</code>
          )}
        </th>
        <td>
          {c.type}
          {c.variant && <span className="muted"> ({c.variant})</span>}
        </td>
        <td>{formatTime(c.createdAt)}</td>
        <td>{formatTime(c.updatedAt)}</td>
        <td className="row-actions">
          {config === undefined ? (
            <button type="button" onClick={() => void reveal()} disabled={busy} aria-label={`Reveal config of ${c.name}`}>
              Reveal config
            </button>
          ) : (
            <button type="button" onClick={onHide} aria-label={`Hide config of ${c.name}`}>
              Hide
            </button>
          )}
          {canAdmin && mode === 'view' && (
            <>
              <button type="button" className="link-button" onClick={onEdit} aria-label={`Edit ${c.name}`}>
                Edit
              </button>
              <button type="button" className="link-button" onClick={() => setMode('rename')} aria-label={`Rename ${c.name}`}>
                Rename
              </button>
              <button type="button" className="link-button danger-link" onClick={() => setMode('delete')} aria-label={`Delete ${c.name}`}>
                Delete
              </button>
            </>
          )}
        </td>
      </tr>
      {(mode === 'delete' || error !== undefined || config !== undefined) && (
        <tr className="detail-row">
          <td colSpan={5}>
            <ErrorBox error={error} />
            {mode === 'delete' && (
              <p>
                Delete <code>{c.name}</code>? Steps that use it fail at run time.{' '}
                <button type="button" className="danger" onClick={() => void remove()} disabled={busy}>
                  Delete connection
                </button>{' '}
                <button type="button" onClick={() => setMode('view')}>
                  Cancel
                </button>
              </p>
            )}
            {config !== undefined && (
              <div className="revealed">
                <p className="warning-text">Decrypted credentials of {c.name}: do not share this screen.</p>
                <JsonView value={config} label={`Config of ${c.name}`} />
              </div>
            )}
          </td>
        </tr>
      )}
    </>
  );
}
