/**
 * Orders the AI takes (CONTRACT §15): the menu (products), a conversation's cart priced from it, orders placed from a
 * cart exactly once, and their way through the platform's statuses.
 */
export { MenuService, PRODUCT_ORDER_BY, PRODUCT_WHERE } from './menu.service.js';
export { CartService, cartFromCatalog, type CartRecord, type OrderConversation } from './cart.service.js';
export { OrderService, ORDER_ORDER_BY, ORDER_WHERE, amount, type OrderRecord, type OrderLine } from './order.service.js';
export {
  DELIVERY_TYPES,
  PAYMETHODS,
  LINES_MAX,
  QUANTITY_MAX,
  LINE_COMMENT_MAX,
  ADDRESS_MAX,
  CART_COMMENT_MAX,
  REASON_MAX,
  NAME_MAX,
  RETAILER_ID_MAX,
  PRICE_MAX,
  ORDER_STATUS_MAX,
} from './input.js';
