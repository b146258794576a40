import { Route, Routes } from 'react-router';
import { Page } from '../../ui/page';

export default function WorkflowsArea() {
  return (
    <Routes>
      <Route index element={<Page title="Workflows">{null}</Page>} />
    </Routes>
  );
}
