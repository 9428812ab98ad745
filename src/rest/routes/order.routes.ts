import { ACCESS } from '../../services/identity/access.js';
import { ID_MAX, INT_MAX } from '../../services/conversations/message-rules.js';
import {
  ADDRESS_MAX,
  CART_COMMENT_MAX,
  DELIVERY_TYPES,
  LINE_COMMENT_MAX,
  LINES_MAX,
  NAME_MAX,
  ORDER_ORDER_BY,
  ORDER_STATUS_MAX,
  ORDER_WHERE,
  PAYMETHODS,
  PRICE_MAX,
  PRODUCT_ORDER_BY,
  PRODUCT_WHERE,
  QUANTITY_MAX,
  REASON_MAX,
  RETAILER_ID_MAX,
} from '../../services/orders/index.js';
import { integerId, object, pathId, type JSONSchema } from '../json-schema.js';
import { paged, type RouteInput, type RouteSpec } from '../route-spec.js';
import { listQuery, listVariables, searchQuery, sentMembers } from './conversation.routes.js';

/** CONTRACT §15: the menu, a conversation's cart, its orders and their way. Levels 0/2 and server keys (level 2: their businesses). */
const common: Pick<RouteSpec, 'access' | 'ai'> = { access: ACCESS.AI_ADMIN, ai: true };
const menu = { ...common, tags: ['ai-menu'] };
const carts = { ...common, tags: ['ai-orders'] };

const idParams = (name: string): JSONSchema => object({ [name]: integerId }, [name]);

const price: JSONSchema = { type: 'number', minimum: 0, maximum: PRICE_MAX, description: 'At most 2 decimals' };
const retailerId: JSONSchema = { type: 'string', minLength: 1, maxLength: RETAILER_ID_MAX };
const productMembers = (creating: boolean): Record<string, JSONSchema> => ({
  ...(creating ? { business_id: { type: 'integer', format: 'int64', minimum: 1, maximum: ID_MAX } } : {}),
  name: { type: 'string', minLength: 1, maxLength: NAME_MAX },
  price,
  enabled: { type: 'boolean' },
  retailer_id: creating
    ? retailerId
    : { type: ['string', 'null'], minLength: 1, maxLength: RETAILER_ID_MAX, description: 'null clears it' },
});

const lineMembers: Record<string, JSONSchema> = {
  product_id: { type: 'integer', format: 'int64', minimum: 1, maximum: ID_MAX },
  retailer_id: retailerId,
  quantity: { type: 'integer', minimum: 1, maximum: QUANTITY_MAX },
  comment: { type: ['string', 'null'], maxLength: LINE_COMMENT_MAX },
};
const location: JSONSchema = object(
  { latitude: { type: 'number', minimum: -90, maximum: 90 }, longitude: { type: 'number', minimum: -180, maximum: 180 } },
  ['latitude', 'longitude'],
);
/**
 * The cart's body. A line's members are checked by the service, which names any other (`lines.0.price`: prices are
 * the menu's) instead of dropping it as unknown body members are; the document shows the line closed.
 */
const cartBody = (line: JSONSchema): JSONSchema =>
  object(
    {
      business_id: { type: 'integer', format: 'int64', minimum: 1, maximum: ID_MAX },
      delivery_type: {
        type: 'integer',
        enum: [...DELIVERY_TYPES],
        description: '1 delivery, 2 pickup, 3 eat-in, 4 curbside, 5 drive-thru',
      },
      lines: { type: 'array', minItems: 1, maxItems: LINES_MAX, items: line },
      address: { type: ['string', 'null'], maxLength: ADDRESS_MAX, description: 'Required for delivery' },
      location: { ...location, type: ['object', 'null'] },
      comment: { type: ['string', 'null'], maxLength: CART_COMMENT_MAX },
    },
    ['business_id', 'delivery_type', 'lines'],
  );
const openLine: JSONSchema = { type: 'object', properties: lineMembers, required: ['quantity'] };
const closedLine: JSONSchema = {
  ...object(lineMembers, ['quantity']),
  oneOf: [{ required: ['product_id'] }, { required: ['retailer_id'] }],
  description: 'Exactly one of product_id and retailer_id; a price or any other member is refused',
};

const conversationId = ({ params }: RouteInput) => ({ conversation_id: pathId(params.conversation_id) });
const orderId = ({ params }: RouteInput) => ({ order_id: pathId(params.order_id) });

export const orderRoutes: RouteSpec[] = [
  {
    ...menu,
    method: 'GET',
    path: '/ai/products',
    operation: 'AiProducts',
    summary: 'The menu: where, orderBy, q (the name contains it, case and accents ignored), page, page_size',
    schema: {
      querystring: searchQuery(),
    },
    variables: (input) => ({ ...listVariables(input), q: input.query.q ?? null }),
    ...paged('aiProducts'),
    list: { where: PRODUCT_WHERE, orderBy: PRODUCT_ORDER_BY },
    record: 'Product',
  },
  {
    ...menu,
    method: 'GET',
    path: '/ai/products/:product_id',
    operation: 'AiProduct',
    errors: ['ERROR_AI_PRODUCT_NOT_FOUND'],
    summary: 'One product',
    schema: { params: idParams('product_id') },
    variables: ({ params }) => ({ product_id: pathId(params.product_id) }),
  },
  {
    ...menu,
    method: 'POST',
    path: '/ai/products',
    operation: 'CreateAiProduct',
    summary: "Adds a product to a business's menu (retailer_id: its WhatsApp catalog id, unique per business)",
    schema: { body: object(productMembers(true), ['business_id', 'name', 'price']) },
    variables: ({ body }) => sentMembers(body),
  },
  {
    ...menu,
    method: 'PATCH',
    path: '/ai/products/:product_id',
    operation: 'UpdateAiProduct',
    errors: ['ERROR_AI_PRODUCT_NOT_FOUND'],
    summary: 'Changes the members given (a price rises, a dish runs out); the carts naming it are priced again',
    schema: { params: idParams('product_id'), body: object(productMembers(false)) },
    variables: (input) => ({ ...sentMembers(input.body), product_id: pathId(input.params.product_id) }),
  },
  {
    ...carts,
    method: 'GET',
    path: '/ai/conversations/:conversation_id/cart',
    operation: 'AiCart',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND', 'ERROR_AI_CONVERSATION_CLOSED', 'ERROR_AI_CART_NOT_FOUND'],
    summary: "The conversation's cart, priced from the menu now (a new version when the menu changed it)",
    schema: { params: idParams('conversation_id') },
    variables: conversationId,
    record: 'Cart',
  },
  {
    ...carts,
    method: 'PUT',
    path: '/ai/conversations/:conversation_id/cart',
    operation: 'SetAiCart',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND', 'ERROR_AI_CONVERSATION_CLOSED'],
    summary: "Replaces the conversation's cart: lines by product_id or retailer_id, priced from the menu (never from the caller)",
    schema: { params: idParams('conversation_id'), body: cartBody(openLine) },
    documentedBody: () => ({ body: cartBody(closedLine) }),
    variables: (input) => ({ ...sentMembers(input.body), ...conversationId(input) }),
  },
  {
    ...carts,
    method: 'DELETE',
    path: '/ai/conversations/:conversation_id/cart',
    operation: 'ClearAiCart',
    errors: ['ERROR_AI_CONVERSATION_NOT_FOUND', 'ERROR_AI_CONVERSATION_CLOSED'],
    summary: "Empties the conversation's cart; result null",
    schema: { params: idParams('conversation_id') },
    variables: conversationId,
    respond: () => ({ result: null }),
    resultSchema: () => ({ result: { type: 'null' } }),
  },
  {
    ...carts,
    method: 'POST',
    path: '/ai/conversations/:conversation_id/orders',
    operation: 'PlaceAiOrder',
    errors: [
      'ERROR_AI_CONVERSATION_NOT_FOUND',
      'ERROR_AI_CONVERSATION_CLOSED',
      'ERROR_AI_CONVERSATION_HANDED_OFF',
      'ERROR_AI_CART_NOT_FOUND',
      'ERROR_AI_CART_CHANGED',
    ],
    summary:
      'Places the cart at cart_version as an order, exactly once (a later place of that version answers the same order); 409 ERROR_AI_CART_CHANGED with the current cart as result when the version is stale or a line has a problem',
    schema: {
      params: idParams('conversation_id'),
      body: object(
        {
          cart_version: { type: 'integer', minimum: 1, maximum: INT_MAX },
          paymethod: { type: 'string', enum: [...PAYMETHODS] },
          comment: { type: ['string', 'null'], maxLength: CART_COMMENT_MAX },
        },
        ['cart_version', 'paymethod'],
      ),
    },
    variables: (input) => ({ ...sentMembers(input.body), ...conversationId(input) }),
  },
  {
    ...carts,
    method: 'GET',
    path: '/ai/orders',
    operation: 'AiOrders',
    summary: 'Orders of the project (level 2: of their businesses), newest first: where, orderBy, page, page_size',
    schema: { querystring: listQuery() },
    variables: listVariables,
    ...paged('aiOrders'),
    list: { where: ORDER_WHERE, orderBy: ORDER_ORDER_BY },
    record: 'Order',
  },
  {
    ...carts,
    method: 'GET',
    path: '/ai/orders/:order_id',
    operation: 'AiOrder',
    errors: ['ERROR_AI_ORDER_NOT_FOUND'],
    summary: 'One order, with its lines and history',
    schema: { params: idParams('order_id') },
    variables: orderId,
  },
  {
    ...carts,
    method: 'POST',
    path: '/ai/orders/:order_id/status',
    operation: 'MoveAiOrder',
    errors: ['ERROR_AI_ORDER_NOT_FOUND', 'ERROR_AI_ORDER_FINAL'],
    summary:
      "Moves an order to one of the platform's statuses (1–23 but 13); the same status again changes nothing; a final order (1, 2, 5, 6, 10, 11, 12, 15, 16, 17) never moves",
    schema: {
      params: idParams('order_id'),
      body: object(
        { status: { type: 'integer', minimum: 0, maximum: ORDER_STATUS_MAX }, reason: { type: ['string', 'null'], maxLength: REASON_MAX } },
        ['status'],
      ),
    },
    variables: (input) => ({ ...sentMembers(input.body), ...orderId(input) }),
  },
];
