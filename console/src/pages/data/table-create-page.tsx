import { type FormEvent, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError, get, post } from '../../api/client';
import { useSession } from '../../session/session';
import { ErrorBox } from '../../ui/error-box';
import { problemAt, problemProps, ProblemNote } from '../../ui/field-problem';
import { Page } from '../../ui/page';
import { DataTabs } from './data-tabs';
import { tablePath } from './data-types';
import { emptyChoice, ImportFileFields, ImportStatus, useImport } from './table-import';

/** The API's rule for table names (src/data-stores/data-stores.schemas.ts), checked before anything is sent. */
const TABLE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;
const NAME_RULE = '1 to 63 characters: a letter, then letters, digits, _ or -';

type Mode = 'empty' | 'import';

/**
 * A new table: empty (POST /data-stores/tables), or made by importing a file
 * into a name no table has yet (the import creates it, all or nothing).
 */
export function TableCreatePage() {
  const { can } = useSession();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [mode, setMode] = useState<Mode>('import');
  const [choice, setChoice] = useState(emptyChoice);
  const [nameProblem, setNameProblem] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [creating, setCreating] = useState(false);
  const importing = useImport();
  const [imported, setImported] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    if (!TABLE_NAME.test(name)) {
      setNameProblem(`The name must be ${NAME_RULE}`);
      return;
    }
    setNameProblem(undefined);
    if (mode === 'empty') {
      setCreating(true);
      try {
        await post('/data-stores/tables', { tableName: name });
        void navigate(`/data/tables/${encodeURIComponent(name)}`);
      } catch (e) {
        setError(e);
        setCreating(false);
      }
      return;
    }
    if (!choice.file) {
      importing.fail(new Error('Choose a file to import'));
      return;
    }
    // An import into an existing table would merge into it: here the table must be new.
    if (await tableExists(name)) {
      setNameProblem(`A table named ${name} exists already; import into it from its page`);
      return;
    }
    setImported(undefined);
    if (await importing.start(name, choice)) setImported(name);
  }

  async function tableExists(table: string): Promise<boolean> {
    try {
      await get(`${tablePath(table)}?limit=1`);
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return false;
      setError(e);
      return true;
    }
  }

  const fieldProblem = nameProblem ? { path: 'tableName', message: nameProblem } : problemAt(error, 'tableName');
  const busy = creating || importing.busy;

  return (
    <Page
      title="New table"
      subtitle={
        <>
          <Link to="/data/tables">Tables</Link> / new
        </>
      }
    >
      <DataTabs />
      {!can('workflows:admin') ? (
        <p className="empty-state">
          Your role can read tables but not create them. <Link to="/data/tables">Back to the tables</Link>
        </p>
      ) : (
        <form className="stacked-form table-create" onSubmit={(e) => void submit(e)} noValidate>
          <div className="field">
            <label htmlFor="table-name">Table name</label>
            <input
              id="table-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={63}
              autoComplete="off"
              {...problemProps('table-name', fieldProblem, 'table-name-help')}
            />
            <span id="table-name-help" className="help">
              {NAME_RULE}
            </span>
            <ProblemNote id="table-name" problem={fieldProblem} />
          </div>
          <fieldset className="choice">
            <legend>Start with</legend>
            <label>
              <input type="radio" name="mode" value="import" checked={mode === 'import'} onChange={() => setMode('import')} /> Records imported from a file
            </label>
            <label>
              <input type="radio" name="mode" value="empty" checked={mode === 'empty'} onChange={() => setMode('empty')} /> An empty table
            </label>
          </fieldset>
          {mode === 'import' && <ImportFileFields idPrefix="create-import" choice={choice} onChange={setChoice} />}
          <ErrorBox error={fieldProblem ? undefined : error} />
          {mode === 'import' && <ImportStatus state={importing.state} tableName={imported ?? name} />}
          <div className="form-actions">
            <button type="submit" className="primary" disabled={busy}>
              {mode === 'empty' ? (creating ? 'Creating…' : 'Create table') : importing.busy ? 'Importing…' : 'Import and create table'}
            </button>
            <Link className="button" to="/data/tables">
              Cancel
            </Link>
          </div>
        </form>
      )}
    </Page>
  );
}
