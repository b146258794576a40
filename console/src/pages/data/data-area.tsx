import { Route, Routes } from 'react-router';
import { Page } from '../../ui/page';

export default function DataArea() {
  return (
    <Routes>
      <Route index element={<Page title="Data">{null}</Page>} />
    </Routes>
  );
}
