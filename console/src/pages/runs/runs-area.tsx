import { Route, Routes } from 'react-router';
import { Page } from '../../ui/page';

export default function RunsArea() {
  return (
    <Routes>
      <Route index element={<Page title="Runs">{null}</Page>} />
    </Routes>
  );
}
