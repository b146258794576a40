import { Navigate, Route, Routes } from 'react-router';
import { NotFoundPage } from '../../layout/not-found-page';
import { RecordPage } from './record-page';
import { SourceCreatePage } from './source-create-page';
import { SourcePage } from './source-page';
import { SourcesPage } from './sources-page';
import { TableCreatePage } from './table-create-page';
import { TablePage } from './table-page';
import { TablesPage } from './tables-page';
import './data.css';

/** Data: data store tables and their records, and the data sources dashboards read. */
export default function DataArea() {
  return (
    <div className="area-data">
      <Routes>
        <Route index element={<Navigate to="tables" replace />} />
        <Route path="tables" element={<TablesPage />} />
        <Route path="new-table" element={<TableCreatePage />} />
        <Route path="tables/:name" element={<TablePage />} />
        <Route path="tables/:name/records/:key" element={<RecordPage />} />
        <Route path="sources" element={<SourcesPage />} />
        <Route path="sources/new" element={<SourceCreatePage />} />
        <Route path="sources/:id" element={<SourcePage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </div>
  );
}
