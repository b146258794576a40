import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../../layout/not-found-page';
import { ConnectionsPage } from './connections-page';
import { EnvironmentPage } from './environment-page';
import { EnvironmentsPage } from './environments-page';
import { MembersPage } from './members-page';
import { ModelPricesPage } from './model-prices-page';
import { SettingsIndex } from './settings-index';
import { TokensPage } from './tokens-page';
import './settings.css';

/** Settings: the organization, its connections, environments and members, the signed-in person's tokens, and the organization's model prices. */
export default function SettingsArea() {
  return (
    <div className="area-settings">
      <Routes>
        <Route index element={<SettingsIndex />} />
        <Route path="connections" element={<ConnectionsPage />} />
        <Route path="environments" element={<EnvironmentsPage />} />
        <Route path="environments/:id" element={<EnvironmentPage />} />
        <Route path="members" element={<MembersPage />} />
        <Route path="tokens" element={<TokensPage />} />
        <Route path="model-prices" element={<ModelPricesPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </div>
  );
}
