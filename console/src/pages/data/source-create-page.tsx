import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useSession } from '../../session/session';
import { Page } from '../../ui/page';
import { DataTabs } from './data-tabs';
import { FeedSourceForm } from './feed-source-form';
import { TableSourceForm } from './table-source-form';
import './sources.css';

/**
 * A new data source, made one of the two ways the API allows: over a data store table (own or shared), with
 * its fields' roles chosen here, or by turning a data feed on for a connection. `?from=feed` opens the second;
 * `?table=<name>` starts the first on that table.
 */
export function SourceCreatePage() {
  const { can } = useSession();
  const [params, setParams] = useSearchParams();
  // Held here as well as in the URL: the radio follows the click at once, not after the router's navigation.
  const [from, setFrom] = useState<'table' | 'feed'>(params.get('from') === 'feed' ? 'feed' : 'table');
  const choose = (next: 'table' | 'feed') => {
    setFrom(next);
    setParams(
      (p) => {
        const q = new URLSearchParams(p);
        if (next === 'feed') q.set('from', 'feed');
        else q.delete('from');
        return q;
      },
      { replace: true },
    );
  };

  return (
    <Page title="New data source" subtitle={<Link to="/data/sources">Data sources</Link>}>
      <DataTabs />
      {!can('dashboards:admin') ? (
        <p className="notice">Your role cannot create data sources (it needs dashboards:admin).</p>
      ) : (
        <div className="source-create">
          <fieldset className="source-kind">
            <legend>Make it from</legend>
            <label>
              <input type="radio" name="source-kind" value="table" checked={from === 'table'} onChange={() => choose('table')} /> A data store table
              <span className="help">records workflows, imports or the API wrote, or a table shared with you</span>
            </label>
            <label>
              <input type="radio" name="source-kind" value="feed" checked={from === 'feed'} onChange={() => choose('feed')} /> A data feed
              <span className="help">Twilio, GitHub or HubSpot records, synced through a connection</span>
            </label>
          </fieldset>
          {from === 'table' ? <TableSourceForm initialTable={params.get('table')} /> : <FeedSourceForm />}
        </div>
      )}
    </Page>
  );
}
