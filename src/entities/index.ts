import { AiAgent } from './ai-agent.js';
import { AiConversation } from './ai-conversation.js';
import { AiMedia } from './ai-media.js';
import { AiMessage } from './ai-message.js';
import { AiReply } from './ai-reply.js';
import { AiTemplate } from './ai-template.js';
import { AiTemplateSend } from './ai-template-send.js';
import { AiTranslation } from './ai-translation.js';
import { ApiKey } from './api-key.js';
import { AppSetting } from './app-setting.js';
import { Business } from './business.js';
import { Config } from './config.js';
import { Device } from './device.js';
import { Franchise } from './franchise.js';
import { OneTimePassword } from './one-time-password.js';
import { Order } from './order.js';
import { OrderProduct } from './order-product.js';
import { Product } from './product.js';
import { Project } from './project.js';
import { Session } from './session.js';
import { User } from './user.js';
import { UserBusiness } from './user-business.js';

/** Every entity, by class reference (no globs: works the same compiled and under vitest). */
export const ENTITIES = [
  Project,
  AppSetting,
  Franchise,
  Business,
  User,
  UserBusiness,
  Session,
  ApiKey,
  OneTimePassword,
  Device,
  Config,
  Product,
  AiAgent,
  AiTemplate,
  AiTemplateSend,
  AiTranslation,
  AiConversation,
  AiMessage,
  AiMedia,
  AiReply,
  Order,
  OrderProduct,
];
