import { sendJson } from '../api';
import { ErrorNotice } from '../components';
import type { Project } from '../types';
import { useAction } from '../use-action';

/** The feature flag that allows integrated error tracking on self-managed instances. */
export const INTEGRATED_FLAG = 'integrated_error_tracking';

/**
 * For administrators, in place of the refusal to enable integrated error tracking on self-managed: turn the flag
 * on for this project or the whole instance, then save the settings again (`onEnabled`).
 */
export function IntegratedFlagSwitch({
  project,
  onEnabled,
}: {
  readonly project: Project;
  readonly onEnabled: () => Promise<void>;
}) {
  const action = useAction();
  const enable = async (forProject: boolean): Promise<void> => {
    const ok = await action.run(() =>
      sendJson('POST', `/api/v4/features/${INTEGRATED_FLAG}`, {
        value: true,
        ...(forProject && { project: String(project.id) }),
      }),
    );
    if (ok) await onEnabled();
  };
  return (
    <section className="notice notice-warning" aria-label="Integrated error tracking feature flag">
      <p>
        <strong>You are an administrator:</strong> turn on the feature flag <code>{INTEGRATED_FLAG}</code> to
        allow integrated error tracking, then the settings are saved again.
      </p>
      {action.error !== null && <ErrorNotice message={action.error} />}
      <div className="actions">
        <button
          type="button"
          className="button button-primary"
          disabled={action.busy}
          onClick={() => void enable(true)}
        >
          Turn on for this project and save
        </button>
        <button type="button" className="button" disabled={action.busy} onClick={() => void enable(false)}>
          Turn on for the whole instance and save
        </button>
      </div>
    </section>
  );
}
