import { Type } from 'typebox';
import type { AppContext } from '../../app-context.js';
import type { OncallRef, RotationInput } from '../../oncall/oncall.service.js';
import { PageQuery, pageRequest, setPageHeaders } from '../pagination.js';
import { type ApiApp, type ApiVersion, viewOf } from '../version.js';

const Params = Type.Object({ id: Type.String() });
const ScheduleParams = Type.Object({ id: Type.String(), iid: Type.Integer() });
const RotationParams = Type.Object({ ...ScheduleParams.properties, rotation_id: Type.Integer() });
const OverrideParams = Type.Object({ ...ScheduleParams.properties, override_id: Type.Integer() });

type RotationBody = {
  name?: string;
  starts_at?: RotationInput['startsAt'];
  ends_at?: RotationInput['endsAt'];
  length?: number;
  length_unit?: string;
  active_period?: { start_time?: string; end_time?: string } | null;
  participants?: { username?: string; user_id?: number }[];
};

function rotationInput(b: RotationBody | undefined): RotationInput {
  const body = b ?? {};
  return {
    name: body.name,
    startsAt: body.starts_at,
    endsAt: body.ends_at,
    length: body.length,
    lengthUnit: body.length_unit,
    activePeriod:
      body.active_period === undefined || body.active_period === null
        ? body.active_period
        : { startTime: body.active_period.start_time, endTime: body.active_period.end_time },
    participants: body.participants?.map((p) => ({ username: p.username, userId: p.user_id })),
  };
}

/**
 * On-call schedules (`/projects/:id/incident_management/oncall_schedules`, and a group's at
 * `/groups/:id/incident_management/oncall_schedules`), their rotations, who is on call and the shifts (Premium and
 * Ultimate; GitLab has these in GraphQL only, and for projects only).
 */
export function oncallRoutes(app: ApiApp, ctx: Pick<AppContext, 'oncall' | 'config'>, api: ApiVersion): void {
  const E = api.entities;
  const P = api.present;
  const url = ctx.config.externalUrl;
  const tags = ['on-call schedules'];
  // A group's schedules are a project's, at the group's path (GitLab has on-call schedules in projects only).
  const owners = [
    {
      base: '/projects/:id/incident_management/oncall_schedules',
      ref: (id: string): OncallRef => id,
      whose: 'project',
    },
    {
      base: '/groups/:id/incident_management/oncall_schedules',
      ref: (id: string): OncallRef => ({ group: id }),
      whose: 'group',
    },
  ];
  for (const { base, ref, whose } of owners) {
    app.get(
      base,
      {
        schema: {
          tags,
          summary: `A ${whose}'s on-call schedules with their rotations (Reporter)`,
          params: Params,
          response: { 200: Type.Array(E.OncallScheduleEntity) },
        },
      },
      async (req) =>
        (await ctx.oncall.listSchedules(req.actor.user, ref(req.params.id))).map((s) =>
          P.oncallSchedule(s, viewOf(req, url)),
        ),
    );
    app.post(
      base,
      {
        schema: {
          tags,
          summary: 'Add an on-call schedule: name, timezone (IANA), description (Maintainer)',
          params: Params,
          body: E.OncallScheduleInput,
          response: { 201: E.OncallScheduleEntity },
        },
      },
      async (req, reply) => {
        const s = await ctx.oncall.createSchedule(req.actor.user, ref(req.params.id), req.body ?? {});
        return reply.status(201).send(P.oncallSchedule(s, viewOf(req, url)));
      },
    );
    app.get(
      `${base}/:iid`,
      {
        schema: {
          tags,
          summary: 'One on-call schedule (Reporter)',
          params: ScheduleParams,
          response: { 200: E.OncallScheduleEntity },
        },
      },
      async (req) =>
        P.oncallSchedule(
          await ctx.oncall.getSchedule(req.actor.user, ref(req.params.id), req.params.iid),
          viewOf(req, url),
        ),
    );
    app.put(
      `${base}/:iid`,
      {
        schema: {
          tags,
          summary:
            "Change an on-call schedule; a new timezone converts its rotations' active hours (Maintainer)",
          params: ScheduleParams,
          body: E.OncallScheduleInput,
          response: { 200: E.OncallScheduleEntity },
        },
      },
      async (req) =>
        P.oncallSchedule(
          await ctx.oncall.updateSchedule(req.actor.user, ref(req.params.id), req.params.iid, req.body ?? {}),
          viewOf(req, url),
        ),
    );
    app.delete(
      `${base}/:iid`,
      { schema: { tags, summary: 'Delete an on-call schedule (Maintainer)', params: ScheduleParams } },
      async (req, reply) => {
        await ctx.oncall.deleteSchedule(req.actor.user, ref(req.params.id), req.params.iid);
        return reply.status(204).send();
      },
    );

    app.get(
      `${base}/:iid/rotations`,
      {
        schema: {
          tags,
          summary: "An on-call schedule's rotations (Reporter)",
          params: ScheduleParams,
          response: { 200: Type.Array(E.OncallRotationEntity) },
        },
      },
      async (req) =>
        (await ctx.oncall.listRotations(req.actor.user, ref(req.params.id), req.params.iid)).map((r) =>
          P.oncallRotation(r, viewOf(req, url)),
        ),
    );
    app.post(
      `${base}/:iid/rotations`,
      {
        schema: {
          tags,
          summary: `Add a rotation: participants (${whose} members), length and unit, start, end, active hours`,
          params: ScheduleParams,
          body: E.OncallRotationInput,
          response: { 201: E.OncallRotationEntity },
        },
      },
      async (req, reply) => {
        const r = await ctx.oncall.createRotation(
          req.actor.user,
          ref(req.params.id),
          req.params.iid,
          rotationInput(req.body),
        );
        return reply.status(201).send(P.oncallRotation(r, viewOf(req, url)));
      },
    );
    app.get(
      `${base}/:iid/rotations/:rotation_id`,
      {
        schema: {
          tags,
          summary: 'One rotation (Reporter)',
          params: RotationParams,
          response: { 200: E.OncallRotationEntity },
        },
      },
      async (req) =>
        P.oncallRotation(
          await ctx.oncall.getRotation(
            req.actor.user,
            ref(req.params.id),
            req.params.iid,
            req.params.rotation_id,
          ),
          viewOf(req, url),
        ),
    );
    app.put(
      `${base}/:iid/rotations/:rotation_id`,
      {
        schema: {
          tags,
          summary: 'Change a rotation; participants, when given, replace the list (Maintainer)',
          params: RotationParams,
          body: E.OncallRotationInput,
          response: { 200: E.OncallRotationEntity },
        },
      },
      async (req) =>
        P.oncallRotation(
          await ctx.oncall.updateRotation(
            req.actor.user,
            ref(req.params.id),
            req.params.iid,
            req.params.rotation_id,
            rotationInput(req.body),
          ),
          viewOf(req, url),
        ),
    );
    app.delete(
      `${base}/:iid/rotations/:rotation_id`,
      { schema: { tags, summary: 'Delete a rotation (Maintainer)', params: RotationParams } },
      async (req, reply) => {
        await ctx.oncall.deleteRotation(
          req.actor.user,
          ref(req.params.id),
          req.params.iid,
          req.params.rotation_id,
        );
        return reply.status(204).send();
      },
    );

    app.get(
      `${base}/:iid/on_call`,
      {
        schema: {
          tags,
          summary: 'Who is on call at `at` (ISO 8601; default now), with their shifts (Reporter)',
          params: ScheduleParams,
          querystring: Type.Object({ at: Type.Optional(Type.String()) }),
          response: { 200: Type.Array(E.OncallUserEntity) },
        },
      },
      async (req) =>
        P.oncallUsers(
          await ctx.oncall.onCall(req.actor.user, ref(req.params.id), req.params.iid, req.query.at),
          viewOf(req, url),
        ),
    );
    app.get(
      `${base}/:iid/shifts`,
      {
        schema: {
          tags,
          summary:
            'The shifts overlapping [from, to) by start, a page at a time (default: now and 14 days; at most 31 days) (Reporter)',
          params: ScheduleParams,
          querystring: Type.Object({
            ...PageQuery.properties,
            from: Type.Optional(Type.String()),
            to: Type.Optional(Type.String()),
          }),
          response: { 200: Type.Array(E.OncallShiftEntity) },
        },
      },
      async (req, reply) => {
        const page = pageRequest(req.query);
        const result = await ctx.oncall.shifts(
          req.actor.user,
          ref(req.params.id),
          req.params.iid,
          { from: req.query.from, to: req.query.to },
          page,
        );
        setPageHeaders(reply, req, url, page, result.total);
        return result.items.map((s) => P.oncallShift(s, viewOf(req, url)));
      },
    );

    app.get(
      `${base}/:iid/overrides`,
      {
        schema: {
          tags,
          summary:
            "A schedule's overrides by start, a page at a time; those overlapping [starts_at, ends_at) when given (Reporter)",
          params: ScheduleParams,
          querystring: Type.Object({
            ...PageQuery.properties,
            starts_at: Type.Optional(Type.String()),
            ends_at: Type.Optional(Type.String()),
          }),
          response: { 200: Type.Array(E.OncallOverrideEntity) },
        },
      },
      async (req, reply) => {
        const page = pageRequest(req.query);
        const result = await ctx.oncall.listOverrides(
          req.actor.user,
          ref(req.params.id),
          req.params.iid,
          { startsAt: req.query.starts_at, endsAt: req.query.ends_at },
          page,
        );
        setPageHeaders(reply, req, url, page, result.total);
        return result.items.map((o) => P.oncallOverride(o, viewOf(req, url)));
      },
    );
    app.post(
      `${base}/:iid/overrides`,
      {
        schema: {
          tags,
          summary:
            'Put one user (user_id or username) on call from starts_at to ends_at across the schedule; the newest override wins where they overlap (Maintainer)',
          params: ScheduleParams,
          body: E.OncallOverrideInput,
          response: { 201: E.OncallOverrideEntity },
        },
      },
      async (req, reply) => {
        const body = req.body ?? {};
        const o = await ctx.oncall.createOverride(req.actor.user, ref(req.params.id), req.params.iid, {
          userId: body.user_id,
          username: body.username,
          startsAt: body.starts_at,
          endsAt: body.ends_at,
        });
        return reply.status(201).send(P.oncallOverride(o, viewOf(req, url)));
      },
    );
    app.delete(
      `${base}/:iid/overrides/:override_id`,
      { schema: { tags, summary: 'Delete an override (Maintainer)', params: OverrideParams } },
      async (req, reply) => {
        await ctx.oncall.deleteOverride(
          req.actor.user,
          ref(req.params.id),
          req.params.iid,
          req.params.override_id,
        );
        return reply.status(204).send();
      },
    );
  }
}
