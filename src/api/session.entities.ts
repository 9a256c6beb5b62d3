import { Type } from 'typebox';

/** The signed-in user of the web UI and the token its forms send (`GET/POST /-/session`). */
export const SessionEntity = Type.Object({
  user: Type.Object({
    id: Type.Integer(),
    username: Type.String(),
    name: Type.String(),
    is_admin: Type.Boolean(),
  }),
  csrf_token: Type.String(),
});
