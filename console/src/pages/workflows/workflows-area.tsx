import { Route, Routes } from 'react-router';
import { NotFoundPage } from '../../layout/not-found-page';
import { NewWorkflowPage } from './new-workflow-page';
import { WorkflowPage } from './workflow-page';
import { WorkflowsListPage } from './workflows-list-page';
import './workflows.css';

export default function WorkflowsArea() {
  return (
    <div className="area-workflows">
      <Routes>
        <Route index element={<WorkflowsListPage />} />
        <Route path="new" element={<NewWorkflowPage />} />
        <Route path=":id" element={<WorkflowPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </div>
  );
}
