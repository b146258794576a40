import { Link } from 'react-router';
import { Page } from '../ui/page';

export function NotFoundPage() {
  return (
    <Page title="Not found">
      <p>
        No console page has this address. <Link to="/runs">Go to runs</Link>.
      </p>
    </Page>
  );
}
