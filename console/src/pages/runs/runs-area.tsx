import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../../layout/not-found-page';
import { BulkReplayPage } from './bulk-replay-page';
import { RunPage } from './run-page';
import { RunsListPage } from './runs-list-page';
import './runs.css';

export default function RunsArea() {
  return (
    <div className="area-runs">
      <Routes>
        <Route index element={<RunsListPage />} />
        <Route path="replay" element={<BulkReplayPage />} />
        <Route path=":id" element={<RunPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </div>
  );
}
