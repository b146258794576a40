import { Route, Routes } from 'react-router';
import { Page } from '../../ui/page';

export default function SettingsArea() {
  return (
    <Routes>
      <Route index element={<Page title="Settings">{null}</Page>} />
    </Routes>
  );
}
