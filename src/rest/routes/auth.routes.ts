import { ACCESS } from '../../services/identity/access.js';
import { object } from '../json-schema.js';
import { propertyAt } from '../openapi-result.js';
import type { RouteSpec } from '../route-spec.js';

const str = (maxLength: number) => ({ type: 'string', maxLength });

export const authRoutes: RouteSpec[] = [
  {
    method: 'POST',
    path: '/auth',
    operation: 'Authenticate',
    errors: ['ERROR_INVALID_CREDENTIALS', 'ERROR_RECAPTCHA'],
    summary: 'Authenticate by email, cellphone, one-time password or guest token',
    tags: ['auth'],
    access: ACCESS.OPEN,
    schema: {
      body: object({
        email: str(255),
        cellphone: str(20),
        country_phone_code: str(8),
        password: { type: 'string', maxLength: 1024, writeOnly: true },
        one_time_password: str(16),
        guest_token: str(64),
        device_code: str(255),
        platform: str(64),
        notification_app: str(255),
        notification_provider: str(64),
        notification_token: str(1024),
        recaptcha_type: { type: 'string', enum: ['v2', 'v3'] },
        verification_code: str(4096),
      }),
    },
    variables: ({ body }) => ({ input: body ?? {} }),
    respond: (data) => {
      const { user, session } = data.authenticate;
      return { result: { ...user, session } };
    },
    resultSchema: (data) => {
      const user = propertyAt(data, 'authenticate', 'user')!;
      const session = propertyAt(data, 'authenticate', 'session')!;
      return {
        result: {
          type: 'object',
          properties: { ...(user.properties as object), session },
          required: [...(user.required as string[]), 'session'],
        },
      };
    },
  },
  {
    method: 'DELETE',
    path: '/auth/session',
    operation: 'EndSession',
    summary:
      'Sign-out: ends the session whose bearer token the request carries (result true); that token is 401 from then on, its streams end within 60 s; an API key or no credential is 401',
    tags: ['auth'],
    access: ACCESS.AUTHENTICATED,
  },
];
