import { Link, useNavigate, useSearchParams } from 'react-router';
import { post } from '../../api/client';
import { useSession } from '../../session/session';
import { Page } from '../../ui/page';
import { DefinitionForm } from './definition-form';
import { starterTemplate } from './starter-templates';
import { STARTER_DEFINITION, type Workflow } from './workflow-model';

/** A new workflow from a pasted or written definition (version 1), or from a starter template (`?template=<id>`). */
export function NewWorkflowPage() {
  const navigate = useNavigate();
  const { can } = useSession();
  const [params] = useSearchParams();
  const asked = params.get('template');
  const template = starterTemplate(asked);

  // The API would refuse the creation anyway: say so instead of offering an editor whose work cannot be saved.
  if (!can('workflows:admin')) {
    return (
      <Page title="New workflow">
        <p className="empty-state">Your role can view workflows and their runs, not create them: ask an owner, admin or developer of the organization.</p>
        <p>
          <Link to="/workflows">Back to workflows</Link>
        </p>
      </Page>
    );
  }

  return (
    <Page
      title="New workflow"
      subtitle={
        template
          ? `From the template “${template.title}”: change what you need, then create it`
          : 'Write the definition, or paste one exported from elsewhere; completion (Ctrl+Space) knows every step type'
      }
    >
      {template && <p className="notice">{template.needs}</p>}
      {asked && !template && <p className="notice">There is no template “{asked}”: this is the blank starting point.</p>}
      <DefinitionForm
        // Another template (or none) starts a fresh editor on its text.
        key={template?.id ?? ''}
        initialText={JSON.stringify(template?.definition ?? STARTER_DEFINITION, null, 2)}
        saveLabel="Create workflow"
        onSave={async (definition) => {
          const created = await post<Workflow>('/workflows', definition);
          navigate(`/workflows/${created.id}`);
        }}
      />
    </Page>
  );
}
