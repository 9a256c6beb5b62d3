import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Cipher } from '../crypto.js';
import { invalidFields, notFound, unprocessable } from '../errors.js';
import { AccessLevel } from '../members/members.js';
import type { Access } from '../projects/access.js';
import type { Project } from '../projects/projects.js';
import type { ProjectsService } from '../projects/projects.service.js';
import type { User } from '../users/users.js';
import {
  type Integration,
  type IntegrationType,
  type IntegrationWarningCode,
  type PayloadMapping,
  payloadFields,
  validateMapping,
} from './alerts.js';
import type { AlertsRepository } from './alerts.repository.js';
import type { Heartbeat } from './heartbeats.js';
import type { HeartbeatInput, HeartbeatsService } from './heartbeats.service.js';

export interface IntegrationInput {
  name?: string;
  type?: IntegrationType;
  active?: boolean;
  apiUrl?: string | null;
  /** JSON text (or an already parsed value) of a sample payload. */
  payloadExample?: unknown;
  payloadAttributeMapping?: unknown;
  /** A heartbeat integration's interval and grace; a Prometheus integration's Watchdog (null: none). */
  heartbeat?: HeartbeatInput | null;
}

/** An integration with its secret, as shown to Maintainers. */
export interface IntegrationView extends Integration {
  readonly authorizationKey: string;
  /** Whether it currently accepts alerts (inactive while the on-call link is active, or beyond the tier). */
  readonly effectiveActive: boolean;
  readonly isDefaultPrometheus: boolean;
  /** What the owner should know about how its alerts are received (recorded by intake, or following from the tier). */
  readonly warnings: readonly IntegrationWarning[];
  /** Its heartbeat's settings and state (heartbeat integrations; Prometheus ones with a Watchdog). */
  readonly heartbeat: Heartbeat | null;
}

export interface IntegrationWarning {
  readonly code: IntegrationWarningCode | 'no_fingerprint';
  readonly message: string;
  /** When intake first noticed it; null for what follows from the settings. */
  readonly at: string | null;
}

const WARNING_MESSAGES: Readonly<Record<IntegrationWarning['code'], string>> = {
  alertmanager_payload:
    'This looks like an Alertmanager payload; use a Prometheus integration (each of its alerts then opens and ' +
    'resolves an alert of its own; here the whole payload is one alert)',
  no_fingerprint:
    'Without a `fingerprint` field in the payload, every notification opens a new alert and a recovery finds no ' +
    'alert to resolve (automatic grouping needs the Premium or Ultimate tier). Add a `fingerprint` (for example ' +
    "the tool's alert id) to the payload the tool sends, or map a payload field to Fingerprint",
};

const newKey = () => randomBytes(16).toString('hex');
const newIdentifier = () => randomBytes(8).toString('hex');

/** Parses the sample payload: a JSON text or a JSON value; 400 when it is not valid JSON. */
function parseExample(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (v.trim() === '') return {};
  try {
    return JSON.parse(v) as unknown;
  } catch (err) {
    throw invalidFields({ payload_example: [`must be valid JSON (${(err as Error).message})`] });
  }
}

function checkUrl(field: string, v: string): void {
  let ok = false;
  try {
    const u = new URL(v);
    ok = u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    ok = false;
  }
  if (!ok) throw invalidFields({ [field]: ['must be an absolute http(s) URL'] });
}

/** Alert integrations: management (Maintainer), tier rules and the on-call link rule. */
export class IntegrationsService {
  private readonly listeners: (() => void | Promise<void>)[] = [];

  constructor(
    private readonly repo: AlertsRepository,
    readonly _projects: ProjectsService,
    private readonly cipher: Cipher,
    private readonly access: Access,
    private readonly clock: Clock,
    private readonly heartbeats: HeartbeatsService,
  ) {}

  /** Registers a function called after any integration changes (the intake cache clears itself). */
  onChange(fn: () => void | Promise<void>): void {
    this.listeners.push(fn);
  }

  private async changed(): Promise<void> {
    await Promise.all(this.listeners.map((fn) => fn()));
  }

  private get premium(): boolean {
    return this.access.hasTier('multiple_integrations');
  }

  /** The project, for a caller with at least `level` (Maintainer manages, Developer tests). */
  async project(
    actor: User | null,
    idOrPath: string,
    level: number = AccessLevel.Maintainer,
  ): Promise<Project> {
    return (await this.access.project(actor, idOrPath, level)).project;
  }

  /** All integrations of a project with their effective state. */
  async views(project: Project): Promise<IntegrationView[]> {
    const all = await this.repo.integrations(project.id);
    const beats = new Map((await this.heartbeats.forProject(project.id)).map((h) => [h.integrationId, h]));
    const oncallActive = all.some((i) => i.type === 'oncall_link' && i.active);
    const firstOfType = new Map<IntegrationType, number>();
    for (const i of all) if (!firstOfType.has(i.type)) firstOfType.set(i.type, i.id);
    const firstPrometheus = firstOfType.get('prometheus');
    return all.map(({ tokenEncrypted, ...i }) => ({
      ...i,
      authorizationKey: this.cipher.decrypt(tokenEncrypted),
      // Free tier: only the first integration of each type counts (GitLab's finder; matters after a downgrade).
      effectiveActive:
        i.active &&
        (i.type === 'oncall_link' || !oncallActive) &&
        (this.premium || firstOfType.get(i.type) === i.id),
      isDefaultPrometheus: i.id === firstPrometheus,
      warnings: this.warnings(i),
      heartbeat: beats.get(i.id) ?? null,
    }));
  }

  private warnings(i: Integration): IntegrationWarning[] {
    const out: IntegrationWarning[] = i.recordedWarnings.map((w) => ({
      code: w.code,
      message: WARNING_MESSAGES[w.code],
      at: w.at,
    }));
    if (
      i.type === 'http' &&
      !this.access.hasTier('alert_auto_grouping') &&
      i.payloadAttributeMapping.fingerprint === undefined
    ) {
      out.push({ code: 'no_fingerprint', message: WARNING_MESSAGES.no_fingerprint, at: null });
    }
    return out;
  }

  /**
   * Records what intake noticed about a payload, once per code (later sightings change nothing, so the hot path
   * writes at most once). Saving the integration clears it.
   */
  async recordWarning(integration: IntegrationView, code: IntegrationWarningCode): Promise<void> {
    if (integration.recordedWarnings.some((w) => w.code === code)) return;
    const now = this.clock.now().toISOString();
    await this.repo.setIntegrationWarnings(integration.id, [
      ...integration.recordedWarnings,
      { code, at: now },
    ]);
    await this.changed();
  }

  async list(actor: User | null, idOrPath: string): Promise<{ project: Project; items: IntegrationView[] }> {
    const project = await this.project(actor, idOrPath);
    return { project, items: await this.views(project) };
  }

  async get(
    actor: User | null,
    idOrPath: string,
    id: number,
  ): Promise<{ project: Project; item: IntegrationView }> {
    const project = await this.project(actor, idOrPath);
    return { project, item: await this.view(project, id) };
  }

  async view(project: Project, id: number): Promise<IntegrationView> {
    const item = (await this.views(project)).find((i) => i.id === id);
    if (!item) throw notFound('Integration');
    return item;
  }

  private checkMappingInput(
    input: IntegrationInput,
    type: IntegrationType,
  ): { example?: unknown; mapping?: PayloadMapping } {
    const out: { example?: unknown; mapping?: PayloadMapping } = {};
    const empty = (v: unknown) =>
      v === undefined ||
      v === null ||
      v === '' ||
      (typeof v === 'string' && v.trim() === '{}') ||
      (typeof v === 'object' && Object.keys(v as object).length === 0);
    // An empty sample payload and mapping are what every integration has: sending them is not custom mapping.
    const customised = !empty(input.payloadExample) || !empty(input.payloadAttributeMapping);
    if (customised) {
      this.access.tier('alert_field_mapping');
      if (type === 'oncall_link')
        throw invalidFields({ payload_attribute_mapping: ['is not used by the on-call link'] });
      if (type === 'heartbeat')
        throw invalidFields({
          payload_attribute_mapping: ['is not used by a heartbeat, which reads no payload'],
        });
    }
    if (input.payloadExample !== undefined) out.example = parseExample(input.payloadExample);
    if (input.payloadAttributeMapping !== undefined) {
      const problems = validateMapping(input.payloadAttributeMapping ?? {});
      if (problems.length > 0) throw invalidFields({ payload_attribute_mapping: problems });
      out.mapping = (input.payloadAttributeMapping ?? {}) as PayloadMapping;
    }
    return out;
  }

  async create(
    actor: User | null,
    idOrPath: string,
    input: IntegrationInput,
  ): Promise<{ project: Project; item: IntegrationView }> {
    const project = await this.project(actor, idOrPath);
    const type = input.type ?? 'http';
    const name = input.name?.trim() ?? '';
    if (name === '') throw invalidFields({ name: ["can't be blank"] });
    if (name.length > 255) throw invalidFields({ name: ['is too long (maximum is 255 characters)'] });
    const existing = await this.repo.integrations(project.id);
    if (type === 'oncall_link') this.access.tier('oncall_link');
    if (existing.some((i) => i.type === type)) {
      this.access.tier('multiple_integrations');
    }
    if (type === 'prometheus' || type === 'oncall_link') {
      if (!input.apiUrl) throw invalidFields({ api_url: ["can't be blank"] });
      checkUrl('api_url', input.apiUrl);
    }
    const active = input.active ?? true;
    if (active && type !== 'oncall_link' && existing.some((i) => i.type === 'oncall_link' && i.active)) {
      throw unprocessable(
        'The on-call tool link is active; disable it before activating another integration',
      );
    }
    const { example, mapping } = this.checkMappingInput(input, type);
    const heartbeat = this.heartbeats.validate(type, input.heartbeat, null);
    const now = this.clock.now().toISOString();
    const id = await this.repo.insertIntegration(
      {
        projectId: project.id,
        name,
        type,
        active,
        endpointIdentifier: newIdentifier(),
        tokenEncrypted: this.cipher.encrypt(newKey()),
        apiUrl: type === 'http' || type === 'heartbeat' ? null : (input.apiUrl ?? null),
        payloadExample: example ?? {},
        payloadAttributeMapping: mapping ?? {},
      },
      now,
    );
    if (type === 'oncall_link' && active) await this.repo.deactivateOthers(project.id, id, now);
    if (heartbeat) await this.heartbeats.configure(project.id, id, heartbeat);
    await this.changed();
    return { project, item: await this.view(project, id) };
  }

  async update(
    actor: User | null,
    idOrPath: string,
    id: number,
    input: IntegrationInput,
  ): Promise<{ project: Project; item: IntegrationView }> {
    const project = await this.project(actor, idOrPath);
    const current = await this.view(project, id);
    if (input.type !== undefined && input.type !== current.type) {
      throw invalidFields({ type: ['cannot be changed; create a new integration'] });
    }
    if (input.name !== undefined && input.name.trim() === '')
      throw invalidFields({ name: ["can't be blank"] });
    if (input.apiUrl) checkUrl('api_url', input.apiUrl);
    if (input.apiUrl === null && current.type !== 'http' && current.type !== 'heartbeat')
      throw invalidFields({ api_url: ["can't be blank"] });
    const all = await this.repo.integrations(project.id);
    if (
      input.active === true &&
      current.type !== 'oncall_link' &&
      all.some((i) => i.type === 'oncall_link' && i.active)
    ) {
      throw unprocessable(
        'The on-call tool link is active; disable it before activating another integration',
      );
    }
    const { example, mapping } = this.checkMappingInput(input, current.type);
    const heartbeat = this.heartbeats.validate(current.type, input.heartbeat, current.heartbeat);
    const exampleChanged =
      example !== undefined && JSON.stringify(example) !== JSON.stringify(current.payloadExample);
    const now = this.clock.now().toISOString();
    await this.repo.updateIntegration(
      id,
      {
        name: input.name?.trim(),
        active: input.active,
        apiUrl:
          current.type === 'http' || current.type === 'heartbeat' ? undefined : (input.apiUrl ?? undefined),
        payloadExample: example,
        // Spec: after the sample payload changes, fields must be mapped again.
        payloadAttributeMapping: mapping ?? (exampleChanged ? {} : undefined),
      },
      now,
    );
    // Saving is how the owner says the sender was fixed: what intake noticed before is forgotten.
    if (current.recordedWarnings.length > 0) await this.repo.setIntegrationWarnings(id, []);
    if (current.type === 'oncall_link' && input.active === true)
      await this.repo.deactivateOthers(project.id, id, now);
    if (heartbeat !== undefined) await this.heartbeats.configure(project.id, id, heartbeat);
    await this.changed();
    return { project, item: await this.view(project, id) };
  }

  async delete(actor: User | null, idOrPath: string, id: number): Promise<void> {
    const project = await this.project(actor, idOrPath);
    await this.view(project, id);
    await this.repo.deleteIntegration(id);
    await this.changed();
  }

  async resetKey(
    actor: User | null,
    idOrPath: string,
    id: number,
  ): Promise<{ project: Project; item: IntegrationView }> {
    const project = await this.project(actor, idOrPath);
    await this.view(project, id);
    await this.repo.updateIntegration(
      id,
      { tokenEncrypted: this.cipher.encrypt(newKey()) },
      this.clock.now().toISOString(),
    );
    await this.changed();
    return { project, item: await this.view(project, id) };
  }

  /** The key paths of the integration's sample payload, for building a mapping. */
  async payloadFields(actor: User | null, idOrPath: string, id: number) {
    const project = await this.project(actor, idOrPath);
    const item = await this.view(project, id);
    return payloadFields(item.payloadExample);
  }

  /** Finds the integration a notify URL names: by endpoint identifier, or the default metrics-alerting one. */
  async forIntake(project: Project, identifier: string | null): Promise<IntegrationView | null> {
    const all = await this.views(project);
    return (
      all.find((i) =>
        identifier === null
          ? i.isDefaultPrometheus
          : i.endpointIdentifier === identifier && i.type !== 'oncall_link',
      ) ?? null
    );
  }
}
