import { useState } from 'react';
import { get, put } from '../../api/client';
import { useSession } from '../../session/session';
import { Page } from '../../ui/page';
import { useApi } from '../../ui/use-api';
import { ListView } from '../../ui/list-view';
import { ConfirmPrompt } from '../../ui/confirm-prompt';
import { ErrorBox } from '../../ui/error-box';
import { PriceForm } from './model-price-form';
import { SettingsTabs } from './settings-tabs';
import type { LlmPrice, LlmPriceEntry, LlmPrices } from './settings-types';

const PRICES = '/organization/llm-prices';

const SOURCE_LABELS: Record<LlmPrice['source'], string> = {
  default: 'Built in',
  setting: 'Operator (LLM_PRICES)',
  organization: 'This organization',
};

/** An entry without its source: what PUT takes. */
const entryOf = ({ source: _source, ...entry }: LlmPrice): LlmPriceEntry => entry;
const sameEntry = (a: LlmPriceEntry, b: LlmPriceEntry) => a.provider === b.provider && a.model === b.model && a.since === b.since;
const rowKey = (e: LlmPriceEntry) => `${e.provider}/${e.model}/${e.since}`;
const perMillion = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 6 })}`;

/**
 * The LLM prices this organization's runs are charged with: the built-in
 * table, the operator's LLM_PRICES over it, the organization's own entries
 * over both. Every member reads it; members:admin adds, changes and removes
 * the organization's own entries (each save replaces the whole list).
 */
export function ModelPricesPage() {
  const { can, session } = useSession();
  const canEdit = can('members:admin');
  const prices = useApi(PRICES, (signal) => get<LlmPrices>(PRICES, { signal }));
  const own = (prices.data?.data ?? []).filter((e) => e.source === 'organization').map(entryOf);
  const [adding, setAdding] = useState(false);
  // At the API's limit a new entry would only be refused: say so instead of offering the form.
  const limit = prices.data?.maxOrganizationEntries;
  const full = limit !== undefined && own.length >= limit;

  /** Saves the organization's entries with `entry` last, so a 400 about it names the last index (PriceForm shows it at its field). */
  const saveWith = async (others: LlmPriceEntry[], entry: LlmPriceEntry | null) => {
    await put<LlmPrices>(PRICES, { entries: entry ? [...others, entry] : others });
    prices.reload();
  };

  return (
    <Page
      title="Model prices"
      subtitle="What a million tokens cost, in USD, in this organization's ai.llm-call and ai.agent steps"
      actions={
        canEdit && prices.data && !adding && !full ? (
          <button type="button" className="primary" onClick={() => setAdding(true)}>
            Add price
          </button>
        ) : undefined
      }
    >
      <SettingsTabs />
      {canEdit && full && (
        <p className="notice" role="note">
          This organization has {limit} prices of its own, the most it may hold: change or remove one to add another.
        </p>
      )}
      <p className="muted">
        This organization&apos;s entries for a provider and model replace every built-in and operator price of that model: a call made before the earliest day
        they name has no price. Costs already recorded keep their price. A model without a price has its tokens recorded and no cost.
      </p>
      {!canEdit && (
        <p className="notice" role="note">
          Your role ({session.role}) can read the prices; changing this organization's own needs the members:admin permission, which owners and admins have.
        </p>
      )}
      {adding && (
        <PriceForm
          label="New price"
          submitLabel="Add price"
          index={own.length}
          onCancel={() => setAdding(false)}
          save={async (entry) => {
            await saveWith(own, entry);
            setAdding(false);
          }}
        />
      )}
      <ListView
        state={prices}
        items={prices.data?.data}
        loadingText="Loading prices…"
        empty="No prices."
        className="model-prices"
        caption="Model prices"
        columns={[
          { label: 'Model' },
          { label: 'Provider' },
          { label: 'Input per 1M tokens', numeric: true },
          { label: 'Output per 1M tokens', numeric: true },
          { label: 'From' },
          { label: 'Source' },
          ...(canEdit ? [{ label: 'Actions', hidden: true }] : []),
        ]}
        rowKey={(price: LlmPrice) => rowKey(price)}
        row={(price) => (
          <PriceRow
            price={price}
            canEdit={canEdit}
            columns={canEdit ? 7 : 6}
            index={own.length - 1}
            save={(entry) =>
              saveWith(
                own.filter((e) => !sameEntry(e, price)),
                entry,
              )
            }
          />
        )}
      />
    </Page>
  );
}

interface RowProps {
  price: LlmPrice;
  canEdit: boolean;
  columns: number;
  /** Where the changed entry goes in the list sent (last). */
  index: number;
  /** Saves the organization's entries without this one, plus `entry` (null: removed). */
  save(entry: LlmPriceEntry | null): Promise<void>;
}

function PriceRow({ price, canEdit, columns, index, save }: RowProps) {
  const [mode, setMode] = useState<'view' | 'edit' | 'remove'>('view');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const own = price.source === 'organization';
  const name = `${price.model} from ${price.since}`;

  async function remove() {
    setBusy(true);
    setError(undefined);
    try {
      await save(null);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <tr>
        <th scope="row" className="plain-row-header">
          <code>{price.model}</code>
        </th>
        <td>{price.provider}</td>
        <td className="num">{perMillion(price.inputPerMillion)}</td>
        <td className="num">{perMillion(price.outputPerMillion)}</td>
        <td>{price.since}</td>
        <td>
          <span className={`badge price-source-${price.source}`}>{SOURCE_LABELS[price.source]}</span>
        </td>
        {canEdit && (
          <td className="row-actions">
            {own && (
              <>
                <button type="button" className="link-button" onClick={() => setMode('edit')} aria-label={`Change ${name}`}>
                  Change
                </button>
                <button type="button" className="link-button danger-link" onClick={() => setMode('remove')} aria-label={`Remove ${name}`}>
                  Remove
                </button>
              </>
            )}
          </td>
        )}
      </tr>
      {mode !== 'view' && (
        <tr className="detail-row">
          <td colSpan={columns}>
            {mode === 'edit' && (
              <PriceForm
                label={`Change ${name}`}
                submitLabel="Save price"
                existing={entryOf(price)}
                index={index}
                onCancel={() => setMode('view')}
                save={async (entry) => {
                  await save(entry);
                  setMode('view');
                }}
              />
            )}
            {mode === 'remove' && (
              <ConfirmPrompt
                question={
                  <>
                    Remove this organization&apos;s price of <code>{price.model}</code> from {price.since}? Later calls are priced by the remaining entries.
                  </>
                }
                confirmLabel="Remove price"
                busy={busy}
                autoFocus
                onConfirm={() => void remove()}
                onCancel={() => setMode('view')}
              />
            )}
            {mode === 'remove' && <ErrorBox error={error} />}
          </td>
        </tr>
      )}
    </>
  );
}
