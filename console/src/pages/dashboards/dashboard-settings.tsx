import { type FormEvent, useId, useState } from 'react';
import { useNavigate } from 'react-router';
import { del, patch } from '../../api/client';
import { DangerZone } from '../../ui/danger-zone';
import { ErrorBox } from '../../ui/error-box';
import type { Dashboard } from './dashboard-api';
import { ZoneSelect } from './zone-select';

interface Props {
  dashboard: Dashboard;
  onSaved(): void;
  onClose(): void;
}

/**
 * A dashboard's own settings (dashboards:admin): name, description, default, and its time zone, fixed for
 * everyone or each viewer's own, changeable at any time (PATCH /dashboards/{id}); and its deletion, confirmed.
 */
export function DashboardSettings({ dashboard, onSaved, onClose }: Props) {
  const navigate = useNavigate();
  const [name, setName] = useState(dashboard.name);
  const [description, setDescription] = useState(dashboard.description);
  const [timezone, setTimezone] = useState(dashboard.timezone ?? '');
  const [isDefault, setIsDefault] = useState(dashboard.isDefault);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const ids = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(undefined);
    try {
      // isDefault only when it changes: true takes the default from another dashboard, false leaves the organization without one.
      const body = { name, description, timezone: timezone || null, ...(isDefault !== dashboard.isDefault ? { isDefault } : {}) };
      await patch<Dashboard>(`/dashboards/${dashboard.id}`, body);
      onSaved();
      onClose();
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="dashboard-settings">
      <form className="panel-form" onSubmit={(e) => void submit(e)} aria-labelledby={`${ids}-heading`}>
        <h2 id={`${ids}-heading`}>Dashboard settings</h2>
        <ErrorBox error={error} />
        <div className="form-row">
          <div className="field">
            <label htmlFor={`${ids}-name`}>Name</label>
            <input id={`${ids}-name`} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="field grow">
            <label htmlFor={`${ids}-description`}>Description</label>
            <input id={`${ids}-description`} maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={`${ids}-zone`}>Dashboard time zone</label>
            <ZoneSelect id={`${ids}-zone`} value={timezone} onChange={setTimezone} current={dashboard.timezone} describedBy={`${ids}-zone-help`} />
          </div>
          <label className="check">
            <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} /> Default dashboard
          </label>
        </div>
        <p id={`${ids}-zone-help`} className="muted">
          A fixed zone shows the same hours to everyone; “each viewer's own” lets each viewer pick theirs.
        </p>
        <div className="form-actions">
          <button type="submit" className="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save settings'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
      <DangerZone
        heading="Delete this dashboard"
        question={
          <>
            Delete “{dashboard.name}” and its {dashboard.widgets?.length ?? 0} widgets for everyone? Its data sources stay.
          </>
        }
        confirmLabel="Delete dashboard"
        action={() => del(`/dashboards/${dashboard.id}`)}
        then={() => navigate('/dashboards')}
      />
    </div>
  );
}
