import { Link } from 'react-router';
import { STARTER_TEMPLATES } from './starter-templates';

/** Where an organization without workflows starts: a starter opened in the editor, or a blank one. For `workflows:admin` only. */
export function StarterPicker() {
  return (
    <section className="starters" aria-labelledby="starters-heading">
      <h2 id="starters-heading">Start from a template</h2>
      <p className="muted">Each opens in the editor as a definition that saves as it stands; change its URLs and names, then create it.</p>
      <ul className="starter-list">
        {STARTER_TEMPLATES.map((t) => (
          <li key={t.id} className="starter-card" aria-labelledby={`starter-${t.id}`}>
            <h3 id={`starter-${t.id}`}>{t.title}</h3>
            <p>{t.summary}</p>
            <p className="hint">{t.needs}</p>
            <p className="muted mono">{t.definition.steps.map((s) => s.stepType).join(' → ')}</p>
            <Link className="button" to={`/workflows/new?template=${t.id}`} aria-label={`Use this template: ${t.title}`}>
              Use this template
            </Link>
          </li>
        ))}
        <li className="starter-card" aria-labelledby="starter-scratch">
          <h3 id="starter-scratch">From scratch</h3>
          <p>A two-step example to replace with your own steps; the editor completes every step type (Ctrl+Space).</p>
          <Link className="button" to="/workflows/new">
            Start from scratch
          </Link>
        </li>
      </ul>
    </section>
  );
}
