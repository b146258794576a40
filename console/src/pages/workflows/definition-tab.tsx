import { useState } from 'react';
import { put } from '../../api/client';
import { useSession } from '../../session/session';
import { DefinitionForm } from './definition-form';
import { useGraphContext } from './graph/graph-context';
import type { Workflow } from './workflow-model';

/** The workflow's current definition, editable by `workflows:admin`; a save stores the next version. */
export function DefinitionTab({ workflow, onSaved }: { workflow: Workflow; onSaved(): void }) {
  const { can } = useSession();
  const [saved, setSaved] = useState<number | undefined>();
  const admin = can('workflows:admin');
  const graph = useGraphContext(workflow);
  return (
    <DefinitionForm
      // A new version (saved here or elsewhere) starts a fresh editor on its text.
      key={workflow.version}
      initialText={JSON.stringify(workflow.definition, null, 2)}
      readOnly={!admin}
      graph={graph}
      onSave={async (definition) => {
        const updated = await put<Workflow>(`/workflows/${workflow.id}`, definition);
        setSaved(updated.version);
        onSaved();
      }}
      status={
        admin ? (
          saved === workflow.version ? (
            <span role="status" className="saved-note">
              Saved as version {saved}
            </span>
          ) : (
            <span className="muted">Version {workflow.version}. Saving stores a new version; runs already started keep theirs.</span>
          )
        ) : (
          <span className="muted">Read only: your role can view workflows, not change them.</span>
        )
      }
    />
  );
}
