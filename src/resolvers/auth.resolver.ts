import { Arg, Ctx, Field, InputType, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { User } from '../entities/user.js';
import type { RequestContext } from '../context/index.js';
import type { AuthInput as AuthInputShape } from '../services/identity/auth.service.js';

@InputType({ description: 'Credentials of one branch: email, cellphone, one-time password or guest token.' })
export class AuthInput implements AuthInputShape {
  @Field(() => String, { nullable: true }) email?: string | null;
  @Field(() => String, { nullable: true }) cellphone?: string | null;
  @Field(() => String, { nullable: true }) country_phone_code?: string | null;
  @Field(() => String, { nullable: true }) password?: string | null;
  @Field(() => String, { nullable: true }) one_time_password?: string | null;
  @Field(() => String, { nullable: true }) guest_token?: string | null;
  @Field(() => String, { nullable: true }) device_code?: string | null;
  @Field(() => String, { nullable: true }) platform?: string | null;
  @Field(() => String, { nullable: true }) notification_app?: string | null;
  @Field(() => String, { nullable: true }) notification_provider?: string | null;
  @Field(() => String, { nullable: true }) notification_token?: string | null;
  @Field(() => String, { nullable: true }) recaptcha_type?: string | null;
  @Field(() => String, { nullable: true }) verification_code?: string | null;
}

@ObjectType({ simpleResolvers: true })
export class SessionToken {
  @Field(() => String) access_token!: string;
  @Field(() => String) token_type!: string;
  @Field(() => Int, { description: 'Seconds until the token expires.' }) expires_in!: number;
}

@ObjectType({ simpleResolvers: true })
export class AuthResult {
  @Field(() => User) user!: User;
  @Field(() => SessionToken) session!: SessionToken;
}

@Resolver()
export class AuthResolver {
  @Mutation(() => AuthResult, { description: 'Opens a session (POST /auth).' })
  authenticate(@Ctx() ctx: RequestContext, @Arg('input', () => AuthInput) input: AuthInput): Promise<AuthResult> {
    return ctx.services.auth.authenticate(ctx, input);
  }

  @Mutation(() => Boolean, {
    description: "Ends the caller's session (DELETE /auth/session): its bearer token is refused from then on; an API key cannot end one.",
  })
  endSession(@Ctx() ctx: RequestContext): Promise<boolean> {
    return ctx.services.auth.endSession(ctx);
  }
}
