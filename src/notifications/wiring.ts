import type { Kysely } from 'kysely';
import type { AlertsService } from '../alerts/alerts.service.js';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import type { Database } from '../db/schema.js';
import type { ErrorTrackingService } from '../error-tracking/error-tracking.service.js';
import type { GitRepositoriesService } from '../git/git-repositories.service.js';
import type { JobQueue } from '../jobs/queue.js';
import type { MembersService } from '../members/members.service.js';
import type { OutboundHttp } from '../outbound.js';
import type { Access } from '../projects/access.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { SilencesService } from '../silences/silences.service.js';
import type { UsersService } from '../users/users.service.js';
import { HookDataBuilder, type HookDataSources } from './hook-data.js';
import { HooksService } from './hooks.service.js';
import { smtpMailer } from './mailer.js';
import { NotificationsRepository } from './notifications.repository.js';
import { NotificationsService, type PayloadPresenter } from './notifications.service.js';

/** Notifications (e-mail, webhook deliveries, error rules) and the project hooks and rules that feed them. */
export function wireNotifications(deps: {
  kysely: Kysely<Database>;
  jobs: JobQueue;
  /** The SMTP server (`null`: e-mails are recorded, not sent) and the sender. */
  smtp: { url: string | null; from: string; timeoutMs: number };
  /** The webhook payloads (built by the HTTP layer's presenters). */
  payloads: PayloadPresenter;
  projects: Pick<ProjectsService, 'findById'>;
  members: Pick<MembersService, 'membersAtLeast' | 'memberIdsAtLeast'>;
  alerts: Pick<AlertsService, 'alertForSystem' | 'sendsEmail'>;
  /** Which silences hold an alert's notifications back, asked when they are sent. */
  silences: Pick<SilencesService, 'silencing'>;
  errorTracking: Pick<ErrorTrackingService, 'errorForSystem'>;
  users: Pick<UsersService, 'findById'>;
  /** What GitLab's push and merge request payloads read. */
  git: Pick<GitRepositoriesService, 'pushedRef' | 'commit'>;
  mergeRequests: HookDataSources['mergeRequests'];
  outbound: OutboundHttp;
  cipher: Cipher;
  access: Access;
  clock: Clock;
  externalUrl: string;
}): { notifications: NotificationsService; hooks: HooksService } {
  const { smtp, payloads, outbound, cipher, clock, externalUrl } = deps;
  const repo = new NotificationsRepository(deps.kysely);
  const notifications = new NotificationsService(
    repo,
    deps.jobs,
    smtp.url ? smtpMailer(smtp.url, smtp.from, smtp.timeoutMs) : null,
    payloads,
    {
      projects: deps.projects,
      members: deps.members,
      alerts: deps.alerts,
      silences: deps.silences,
      errors: deps.errorTracking,
      // Checked when each e-mail is sent: the recipient as the access policy sees them now.
      recipient: async (userId, project) => {
        const user = await deps.users.findById(userId);
        return (
          user && { blocked: user.state !== 'active', level: await deps.access.projectLevel(user, project) }
        );
      },
    },
    outbound,
    cipher,
    deps.access,
    clock,
    externalUrl,
    new HookDataBuilder({ users: deps.users, git: deps.git, mergeRequests: deps.mergeRequests }, externalUrl),
  );
  return {
    notifications,
    hooks: new HooksService(
      repo,
      deps.access,
      notifications,
      payloads,
      outbound,
      cipher,
      clock,
      externalUrl,
      deps.members,
    ),
  };
}
