import { useState } from 'react';
import { useNavigate } from 'react-router';
import { post } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import type { Dashboard } from './dashboard-api';

/**
 * "New from template → Operations" (POST /dashboards/templates/operations): a
 * dashboard over the organization's built-in run sources, its four widgets laid
 * out, opened at once. Each press makes another ("Operations 2", …), so there
 * is nothing to ask first.
 */
export function OperationsTemplateAction() {
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const created = await post<Dashboard>('/dashboards/templates/operations', {});
      navigate(`/dashboards/${created.id}`);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <>
      <button
        type="button"
        onClick={() => void create()}
        disabled={busy}
        title="Runs per day by status, p95 duration per workflow, failures by step and model cost by model, over this organization's runs"
      >
        {busy ? 'Creating…' : 'New from template: Operations'}
      </button>
      <ErrorBox error={error} />
    </>
  );
}
