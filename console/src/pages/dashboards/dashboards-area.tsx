import { Route, Routes } from 'react-router';
import { Page } from '../../ui/page';

export default function DashboardsArea() {
  return (
    <Routes>
      <Route index element={<Page title="Dashboards">{null}</Page>} />
    </Routes>
  );
}
