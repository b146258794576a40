import { useNavigate } from 'react-router';
import { post } from '../../api/client';
import { Page } from '../../ui/page';
import { DefinitionForm } from './definition-form';
import { STARTER_DEFINITION, type Workflow } from './workflow-model';

/** A new workflow from a pasted or written definition (version 1). */
export function NewWorkflowPage() {
  const navigate = useNavigate();
  return (
    <Page title="New workflow" subtitle="Write the definition, or paste one exported from elsewhere; completion (Ctrl+Space) knows every step type">
      <DefinitionForm
        initialText={JSON.stringify(STARTER_DEFINITION, null, 2)}
        saveLabel="Create workflow"
        onSave={async (definition) => {
          const created = await post<Workflow>('/workflows', definition);
          navigate(`/workflows/${created.id}`);
        }}
      />
    </Page>
  );
}
