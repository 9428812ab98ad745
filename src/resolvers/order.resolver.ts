import { GraphQLJSON, GraphQLSafeInt } from 'graphql-scalars';
import { Arg, Ctx, Field, Float, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { Product } from '../entities/product.js';
import type { RequestContext } from '../context/index.js';
import type { Page } from '../services/conversations/conversation.service.js';
import type { CartRecord, OrderLine, OrderRecord } from '../services/orders/index.js';
import { Pagination } from './conversation.resolver.js';

@ObjectType({ simpleResolvers: true, description: 'One page of products.' })
export class AiProductPage implements Page<Product> {
  @Field(() => [Product]) items!: Product[];
  @Field(() => Pagination) pagination!: Pagination;
}

@ObjectType({ simpleResolvers: true, description: 'A point on the map.' })
export class AiLocation {
  @Field(() => Float) latitude!: number;
  @Field(() => Float) longitude!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A line of a cart, priced from the menu now (a problem line: name, price and total null when its product is unknown).',
})
export class AiCartLine {
  @Field(() => GraphQLSafeInt, { nullable: true }) product_id!: number | null;
  @Field(() => String, { nullable: true }) retailer_id!: string | null;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => Int) quantity!: number;
  @Field(() => Float, { nullable: true, description: "The menu's unit price now" }) price!: number | null;
  @Field(() => Float, { nullable: true, description: 'price × quantity' }) total!: number | null;
  @Field(() => String, { nullable: true }) comment!: string | null;
}

@ObjectType({ simpleResolvers: true, description: "A cart's money, rounded half up to 2 decimals at each member." })
export class AiCartSummary {
  @Field(() => Float) subtotal!: number;
  @Field(() => Float, { description: 'Always 0' }) discount!: number;
  @Field(() => Float, { description: "The business's, for delivery only" }) delivery_price!: number;
  @Field(() => Float, { description: 'subtotal × tax_rate / 100' }) tax!: number;
  @Field(() => Float, { description: 'subtotal − discount + delivery_price + tax' }) total!: number;
}

@ObjectType({ simpleResolvers: true, description: 'A line that cannot be ordered now; it counts in no sum.' })
export class AiCartProblem {
  @Field(() => Int, { description: '0-based index of the line' }) line!: number;
  @Field(() => GraphQLSafeInt, { nullable: true }) product_id!: number | null;
  @Field(() => String, { nullable: true }) retailer_id!: string | null;
  @Field(() => String, { description: 'unknown or disabled' }) reason!: 'unknown' | 'disabled';
}

@ObjectType({ simpleResolvers: true, description: "A conversation's cart, priced from the menu whenever it is read." })
export class AiCart implements CartRecord {
  @Field(() => GraphQLSafeInt) conversation_id!: number;
  @Field(() => GraphQLSafeInt) business_id!: number;
  @Field(() => Int, { description: '1 delivery, 2 pickup, 3 eat-in, 4 curbside, 5 drive-thru' }) delivery_type!: number;
  @Field(() => [AiCartLine]) lines!: AiCartLine[];
  @Field(() => String, { nullable: true }) address!: string | null;
  @Field(() => AiLocation, { nullable: true }) location!: AiLocation | null;
  @Field(() => String, { nullable: true }) comment!: string | null;
  @Field(() => String, { description: "The business's currency (ISO 4217)" }) currency!: string;
  @Field(() => AiCartSummary) summary!: AiCartSummary;
  @Field(() => [AiCartProblem]) problems!: AiCartProblem[];
  @Field(() => Int, { description: 'Names this priced cart for good: it changes exactly when anything above changes' }) version!: number;
  @Field(() => Date) updated_at!: Date;
}

@ObjectType({ simpleResolvers: true, description: "An order's money (the platform's `summary`; a member that is not a number is null)." })
export class AiOrderSummary {
  @Field(() => Float, { nullable: true }) subtotal!: number | null;
  @Field(() => Float, { nullable: true }) discount!: number | null;
  @Field(() => Float, { nullable: true }) delivery_price!: number | null;
  @Field(() => Float, { nullable: true }) tax!: number | null;
  @Field(() => Float, { nullable: true }) total!: number | null;
}

@ObjectType({ simpleResolvers: true, description: 'A line of an order, as it was sold.' })
export class AiOrderLine implements OrderLine {
  @Field(() => GraphQLSafeInt, { nullable: true }) product_id!: number | null;
  @Field(() => String) name!: string;
  @Field(() => Int) quantity!: number;
  @Field(() => Float) price!: number;
  @Field(() => Float) total!: number;
  @Field(() => String, { nullable: true }) comment!: string | null;
}

@ObjectType({ simpleResolvers: true, description: "A step of an order's way." })
export class AiOrderStep {
  @Field(() => Int) status!: number;
  @Field(() => Date) at!: Date;
  @Field(() => Int, { nullable: true, description: 'The user who moved it; null for a server key' }) by!: number | null;
  @Field(() => String, { nullable: true }) reason!: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'The Conversions API event that credits the ad (CONTRACT §15.6).' })
export class AiOrderConversion {
  @Field(() => String, { description: 'pending, sent or failed' }) status!: string;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => Date, { nullable: true }) sent_at!: Date | null;
}

@ObjectType({ simpleResolvers: true, description: 'An order.' })
export class AiOrder implements OrderRecord {
  @Field(() => GraphQLSafeInt) id!: number;
  @Field(() => String, { description: 'Random, for links a customer may see' }) uuid!: string;
  @Field(() => GraphQLSafeInt, { nullable: true }) business_id!: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true }) conversation_id!: number | null;
  @Field(() => GraphQLSafeInt, { nullable: true }) customer_id!: number | null;
  @Field(() => Int, { description: "The platform's status code (0 pending … 23 driver on way)" }) status!: number;
  @Field(() => Int, { nullable: true }) delivery_type!: number | null;
  @Field(() => String, { nullable: true }) paymethod!: string | null;
  @Field(() => String, { nullable: true }) currency!: string | null;
  @Field(() => AiOrderSummary) summary!: AiOrderSummary;
  @Field(() => [AiOrderLine]) products!: AiOrderLine[];
  @Field(() => String, { nullable: true }) address!: string | null;
  @Field(() => AiLocation, { nullable: true }) location!: AiLocation | null;
  @Field(() => String, { nullable: true }) comment!: string | null;
  @Field(() => [AiOrderStep], { description: 'Oldest first, the placing included' }) history!: AiOrderStep[];
  @Field(() => AiOrderConversion, { nullable: true }) conversion!: AiOrderConversion | null;
  @Field(() => Date) created_at!: Date;
  @Field(() => Date) updated_at!: Date;
}

@ObjectType({ simpleResolvers: true, description: 'One page of orders.' })
export class AiOrderPage implements Page<OrderRecord> {
  @Field(() => [AiOrder]) items!: AiOrder[];
  @Field(() => Pagination) pagination!: Pagination;
}

const whereArg = { nullable: true, description: 'A filter: a JSON object of attribute conditions (`where`)' } as const;
const orderByArg = { nullable: true, description: 'Comma-separated attributes, `-` for descending' } as const;

/** Orders the AI takes (CONTRACT §15): the menu, a conversation's cart, its orders and their way. */
@Resolver()
export class OrderResolver {
  @Query(() => AiProductPage, { description: "The menu's products (GET /ai/products)." })
  aiProducts(
    @Ctx() ctx: RequestContext,
    @Arg('where', () => GraphQLJSON, whereArg) where?: unknown,
    @Arg('orderBy', () => String, orderByArg) orderBy?: string | null,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
    @Arg('q', () => String, { nullable: true, description: '1–100 characters: the name contains it, case and accents ignored' })
    q?: string | null,
  ): Promise<AiProductPage> {
    return ctx.services.menu.list(ctx, { where, orderBy, page, page_size }, q);
  }

  @Query(() => Product, { description: 'One product (GET /ai/products/{product_id}).' })
  aiProduct(@Ctx() ctx: RequestContext, @Arg('product_id', () => GraphQLSafeInt) productId: number): Promise<Product> {
    return ctx.services.menu.get(ctx, productId);
  }

  @Mutation(() => Product, { description: 'Adds a product to a business menu (POST /ai/products).' })
  createAiProduct(
    @Ctx() ctx: RequestContext,
    @Arg('business_id', () => GraphQLSafeInt) business_id: number,
    @Arg('name', () => String) name: string,
    @Arg('price', () => Float) price: number,
    @Arg('enabled', () => Boolean, { nullable: true }) enabled?: boolean | null,
    @Arg('retailer_id', () => String, { nullable: true }) retailer_id?: string | null,
  ): Promise<Product> {
    return ctx.services.menu.create(ctx, { business_id, name, price, enabled, retailer_id });
  }

  @Mutation(() => Product, { description: 'Changes the members given of a product (PATCH /ai/products/{product_id}).' })
  updateAiProduct(
    @Ctx() ctx: RequestContext,
    @Arg('product_id', () => GraphQLSafeInt) productId: number,
    @Arg('name', () => String, { nullable: true }) name?: string | null,
    @Arg('price', () => Float, { nullable: true }) price?: number | null,
    @Arg('enabled', () => Boolean, { nullable: true }) enabled?: boolean | null,
    @Arg('retailer_id', () => String, { nullable: true, description: 'null clears it' }) retailer_id?: string | null,
  ): Promise<Product> {
    return ctx.services.menu.update(ctx, productId, { name, price, enabled, retailer_id });
  }

  @Query(() => AiCart, { description: "A conversation's cart, priced now (GET /ai/conversations/{conversation_id}/cart)." })
  aiCart(@Ctx() ctx: RequestContext, @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number): Promise<CartRecord> {
    return ctx.services.carts.get(ctx, conversationId);
  }

  @Mutation(() => AiCart, { description: "Replaces a conversation's cart (PUT /ai/conversations/{conversation_id}/cart)." })
  setAiCart(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('business_id', () => GraphQLSafeInt) business_id: number,
    @Arg('delivery_type', () => Int) delivery_type: number,
    @Arg('lines', () => GraphQLJSON, { description: '1–100 lines: {product_id | retailer_id, quantity 1–999, comment}' }) lines: unknown,
    @Arg('address', () => String, { nullable: true }) address?: string | null,
    @Arg('location', () => GraphQLJSON, { nullable: true, description: '{latitude, longitude}' }) location?: unknown,
    @Arg('comment', () => String, { nullable: true }) comment?: string | null,
  ): Promise<CartRecord> {
    return ctx.services.carts.put(ctx, conversationId, { business_id, delivery_type, lines, address, location, comment });
  }

  @Mutation(() => AiCart, {
    nullable: true,
    description: "Empties a conversation's cart: null (DELETE /ai/conversations/{conversation_id}/cart).",
  })
  clearAiCart(@Ctx() ctx: RequestContext, @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number): Promise<null> {
    return ctx.services.carts.remove(ctx, conversationId);
  }

  @Mutation(() => AiOrder, {
    description: "Places the conversation's cart at cart_version, exactly once (POST /ai/conversations/{conversation_id}/orders).",
  })
  placeAiOrder(
    @Ctx() ctx: RequestContext,
    @Arg('conversation_id', () => GraphQLSafeInt) conversationId: number,
    @Arg('cart_version', () => Int) cart_version: number,
    @Arg('paymethod', () => String) paymethod: string,
    @Arg('comment', () => String, { nullable: true }) comment?: string | null,
  ): Promise<OrderRecord> {
    return ctx.services.orders.place(ctx, conversationId, { cart_version, paymethod, comment });
  }

  @Query(() => AiOrderPage, { description: 'Orders, newest first (GET /ai/orders).' })
  aiOrders(
    @Ctx() ctx: RequestContext,
    @Arg('where', () => GraphQLJSON, whereArg) where?: unknown,
    @Arg('orderBy', () => String, orderByArg) orderBy?: string | null,
    @Arg('page', () => Int, { nullable: true }) page?: number | null,
    @Arg('page_size', () => Int, { nullable: true }) page_size?: number | null,
  ): Promise<Page<OrderRecord>> {
    return ctx.services.orders.list(ctx, { where, orderBy, page, page_size });
  }

  @Query(() => AiOrder, { description: 'One order (GET /ai/orders/{order_id}).' })
  aiOrder(@Ctx() ctx: RequestContext, @Arg('order_id', () => GraphQLSafeInt) orderId: number): Promise<OrderRecord> {
    return ctx.services.orders.get(ctx, orderId);
  }

  @Mutation(() => AiOrder, { description: "Moves an order to one of the platform's statuses (POST /ai/orders/{order_id}/status)." })
  moveAiOrder(
    @Ctx() ctx: RequestContext,
    @Arg('order_id', () => GraphQLSafeInt) orderId: number,
    @Arg('status', () => Int) status: number,
    @Arg('reason', () => String, { nullable: true }) reason?: string | null,
  ): Promise<OrderRecord> {
    return ctx.services.orders.move(ctx, orderId, { status, reason });
  }
}
