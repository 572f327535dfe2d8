// SPDX-License-Identifier: Apache-2.0
// The adapter's task and buffer allocator: task pool with rx/tx active limits, dispatch queue,
// channel buffer (CB) free list with window tags and bind counts, and a LIFO DTB free list.
//
// Protocol: one request per clock (req_ready is always 1 outside reset). The response to a
// request accepted at clock edge N is presented on the rsp_* outputs after edge N, for one
// cycle; rsp_valid is 0 in a cycle after which no request was accepted. Every output is a
// register, so outputs never depend combinationally on inputs.
//
// Rules (mirrored exactly by hw/rtl/task_buffer_allocator_model.cc):
//   ALLOC_TASK(kind)  lowest-index free task, if kind's active count < its limit and a task is
//                     free; else rsp_ok=0 (none, not an error).
//   FREE_TASK(task)   error if the task is free, or still in the dispatch queue.
//   WAKE(task)        pushes the task on the dispatch queue; error if it is free or already
//                     queued (so the queue, NUM_TASKS deep, can never overflow).
//   POP_DISPATCH      oldest queued task; error (and rsp_ok=0) if the queue is empty.
//   BIND_CB(window, kind)  the CB already tagged with window, else the lowest-index free CB
//                     (rsp_fetched=1: the LMT is loaded), else rsp_ok=0 (none); error if the
//                     kind's bind count is already NUM_TASKS.
//   UNBIND_CB(cb, kind)    error if the CB is free or has no binder of that kind; the last
//                     binder leaving frees the CB and reports rsp_flushed=1.
//   ALLOC_DTB         LIFO: the most recently freed DTB (after reset 0, 1, 2, ...); else none.
//   FREE_DTB(dtb)     error if the DTB is already free.
// Illegal requests (errors, unknown opcodes, out-of-range ids) change no state.
module task_buffer_allocator #(
    parameter int NUM_TASKS = 16,
    parameter int NUM_CBS = 16,
    parameter int NUM_DTBS = 8,
    parameter int WINDOW_W = 16,
    localparam int TASK_W = $clog2(NUM_TASKS),
    localparam int CB_W = $clog2(NUM_CBS),
    localparam int DTB_W = $clog2(NUM_DTBS),
    localparam int ID_W = (TASK_W > CB_W) ? ((TASK_W > DTB_W) ? TASK_W : DTB_W)
                                          : ((CB_W > DTB_W) ? CB_W : DTB_W),
    localparam int CNT_W = $clog2(NUM_TASKS + 1),
    localparam int CBCNT_W = $clog2(NUM_CBS + 1),
    localparam int DTBCNT_W = $clog2(NUM_DTBS + 1)
) (
    input  logic                clk,
    /** Synchronous reset, active low: frees every task, CB and DTB and empties the queue. */
    input  logic                rst_n,
    /** Most receive / transmit tasks active at once (sampled at each ALLOC_TASK). */
    input  logic [   CNT_W-1:0] rx_limit,
    input  logic [   CNT_W-1:0] tx_limit,
    input  logic                req_valid,
    output logic                req_ready,
    /** 0 NOP, 1 ALLOC_TASK, 2 FREE_TASK, 3 WAKE, 4 POP_DISPATCH, 5 BIND_CB, 6 UNBIND_CB,
        7 ALLOC_DTB, 8 FREE_DTB. */
    input  logic [         3:0] req_op,
    /** Task kind: 0 receive, 1 transmit. */
    input  logic                req_kind,
    input  logic [  TASK_W-1:0] req_task,
    input  logic [WINDOW_W-1:0] req_window,
    input  logic [    CB_W-1:0] req_cb,
    input  logic [   DTB_W-1:0] req_dtb,
    output logic                rsp_valid,
    output logic [         3:0] rsp_op,
    /** The operation succeeded (alloc/pop/bind found a resource; free/wake/unbind done). */
    output logic                rsp_ok,
    /** The request was illegal and changed nothing. */
    output logic                rsp_error,
    /** The task, CB or DTB the operation handed out or acted on; 0 when not ok. */
    output logic [    ID_W-1:0] rsp_id,
    /** BIND_CB took a free CB for the window (its LMT must be fetched). */
    output logic                rsp_fetched,
    /** UNBIND_CB released the last binder (the LMT must be flushed; the CB is free). */
    output logic                rsp_flushed,
    output logic [   CNT_W-1:0] rx_active,
    output logic [   CNT_W-1:0] tx_active,
    output logic [   CNT_W-1:0] queue_depth,
    output logic [ CBCNT_W-1:0] free_cbs,
    output logic [DTBCNT_W-1:0] free_dtbs
);

  localparam logic [3:0] OP_NOP = 4'd0;
  localparam logic [3:0] OP_ALLOC_TASK = 4'd1;
  localparam logic [3:0] OP_FREE_TASK = 4'd2;
  localparam logic [3:0] OP_WAKE = 4'd3;
  localparam logic [3:0] OP_POP_DISPATCH = 4'd4;
  localparam logic [3:0] OP_BIND_CB = 4'd5;
  localparam logic [3:0] OP_UNBIND_CB = 4'd6;
  localparam logic [3:0] OP_ALLOC_DTB = 4'd7;
  localparam logic [3:0] OP_FREE_DTB = 4'd8;

  localparam logic [CNT_W-1:0] MAX_BINDERS = CNT_W'(NUM_TASKS);

  // Task pool.
  logic [NUM_TASKS-1:0] task_busy;
  logic [NUM_TASKS-1:0] task_kind;
  logic [NUM_TASKS-1:0] task_queued;
  logic [CNT_W-1:0] active[2];

  // Dispatch queue: a ring of task ids.
  logic [TASK_W-1:0] queue[NUM_TASKS];
  logic [TASK_W-1:0] q_head;
  logic [TASK_W-1:0] q_tail;
  logic [CNT_W-1:0] q_count;

  // Channel buffers.
  logic [NUM_CBS-1:0] cb_bound;
  logic [WINDOW_W-1:0] cb_window[NUM_CBS];
  logic [CNT_W-1:0] cb_binders[NUM_CBS][2];

  // DTB free list: a stack of ids plus a free bitmap to catch double frees.
  logic [DTB_W-1:0] dtb_stack[NUM_DTBS];
  logic [DTBCNT_W-1:0] dtb_sp;
  logic [NUM_DTBS-1:0] dtb_free;

  // Lowest free task and lowest free CB; the CB already tagged with the request's window.
  logic free_task_found;
  logic [TASK_W-1:0] free_task_idx;
  logic free_cb_found;
  logic [CB_W-1:0] free_cb_idx;
  logic match_cb_found;
  logic [CB_W-1:0] match_cb_idx;

  always_comb begin
    free_task_found = 1'b0;
    free_task_idx = '0;
    for (int i = NUM_TASKS - 1; i >= 0; i--) begin
      if (!task_busy[i]) begin
        free_task_found = 1'b1;
        free_task_idx = TASK_W'(i);
      end
    end
    free_cb_found = 1'b0;
    free_cb_idx = '0;
    match_cb_found = 1'b0;
    match_cb_idx = '0;
    for (int i = NUM_CBS - 1; i >= 0; i--) begin
      if (!cb_bound[i]) begin
        free_cb_found = 1'b1;
        free_cb_idx = CB_W'(i);
      end else if (cb_window[i] == req_window) begin
        match_cb_found = 1'b1;
        match_cb_idx = CB_W'(i);
      end
    end
  end

  // Range checks written at 32 bits so they stay meaningful for non-power-of-two sizes.
  wire task_in_range = 32'(req_task) < NUM_TASKS;
  wire cb_in_range = 32'(req_cb) < NUM_CBS;
  wire dtb_in_range = 32'(req_dtb) < NUM_DTBS;
  wire [TASK_W-1:0] q_head_next = (32'(q_head) == NUM_TASKS - 1) ? '0 : q_head + 1'b1;
  wire [TASK_W-1:0] q_tail_next = (32'(q_tail) == NUM_TASKS - 1) ? '0 : q_tail + 1'b1;
  wire [CNT_W-1:0] kind_limit = (req_kind == 1'b0) ? rx_limit : tx_limit;
  wire [DTB_W-1:0] dtb_top = DTB_W'(dtb_sp - 1'b1);

  assign req_ready = rst_n;
  assign rx_active = active[0];
  assign tx_active = active[1];
  assign queue_depth = q_count;
  assign free_cbs = CBCNT_W'($countones(~cb_bound));
  assign free_dtbs = dtb_sp;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      task_busy <= '0;
      task_kind <= '0;
      task_queued <= '0;
      active[0] <= '0;
      active[1] <= '0;
      for (int i = 0; i < NUM_TASKS; i++) queue[i] <= '0;
      q_head <= '0;
      q_tail <= '0;
      q_count <= '0;
      cb_bound <= '0;
      for (int i = 0; i < NUM_CBS; i++) begin
        cb_window[i] <= '0;
        cb_binders[i][0] <= '0;
        cb_binders[i][1] <= '0;
      end
      // Pushed NUM_DTBS-1 down to 0 so the first allocations hand out 0, 1, 2, ...
      for (int i = 0; i < NUM_DTBS; i++) dtb_stack[i] <= DTB_W'(NUM_DTBS - 1 - i);
      dtb_sp <= DTBCNT_W'(NUM_DTBS);
      dtb_free <= '1;
      rsp_valid <= 1'b0;
      rsp_op <= OP_NOP;
      rsp_ok <= 1'b0;
      rsp_error <= 1'b0;
      rsp_id <= '0;
      rsp_fetched <= 1'b0;
      rsp_flushed <= 1'b0;
    end else begin
      rsp_valid <= req_valid;
      rsp_op <= req_valid ? req_op : OP_NOP;
      rsp_ok <= 1'b0;
      rsp_error <= 1'b0;
      rsp_id <= '0;
      rsp_fetched <= 1'b0;
      rsp_flushed <= 1'b0;
      if (req_valid) begin
        case (req_op)
          OP_NOP: rsp_ok <= 1'b1;
          OP_ALLOC_TASK: begin
            if (free_task_found && active[req_kind] < kind_limit) begin
              task_busy[free_task_idx] <= 1'b1;
              task_kind[free_task_idx] <= req_kind;
              active[req_kind] <= active[req_kind] + 1'b1;
              rsp_ok <= 1'b1;
              rsp_id <= ID_W'(free_task_idx);
            end
          end
          OP_FREE_TASK: begin
            if (!task_in_range || !task_busy[req_task] || task_queued[req_task]) begin
              rsp_error <= 1'b1;
            end else begin
              task_busy[req_task] <= 1'b0;
              active[task_kind[req_task]] <= active[task_kind[req_task]] - 1'b1;
              rsp_ok <= 1'b1;
              rsp_id <= ID_W'(req_task);
            end
          end
          OP_WAKE: begin
            if (!task_in_range || !task_busy[req_task] || task_queued[req_task]) begin
              rsp_error <= 1'b1;
            end else begin
              task_queued[req_task] <= 1'b1;
              queue[q_tail] <= req_task;
              q_tail <= q_tail_next;
              q_count <= q_count + 1'b1;
              rsp_ok <= 1'b1;
              rsp_id <= ID_W'(req_task);
            end
          end
          OP_POP_DISPATCH: begin
            if (q_count == '0) begin
              rsp_error <= 1'b1;
            end else begin
              task_queued[queue[q_head]] <= 1'b0;
              q_head <= q_head_next;
              q_count <= q_count - 1'b1;
              rsp_ok <= 1'b1;
              rsp_id <= ID_W'(queue[q_head]);
            end
          end
          OP_BIND_CB: begin
            if (match_cb_found) begin
              if (cb_binders[match_cb_idx][req_kind] == MAX_BINDERS) begin
                rsp_error <= 1'b1;
              end else begin
                cb_binders[match_cb_idx][req_kind] <= cb_binders[match_cb_idx][req_kind] + 1'b1;
                rsp_ok <= 1'b1;
                rsp_id <= ID_W'(match_cb_idx);
              end
            end else if (free_cb_found) begin
              cb_bound[free_cb_idx] <= 1'b1;
              cb_window[free_cb_idx] <= req_window;
              cb_binders[free_cb_idx][req_kind] <= CNT_W'(1);
              cb_binders[free_cb_idx][~req_kind] <= '0;
              rsp_ok <= 1'b1;
              rsp_fetched <= 1'b1;
              rsp_id <= ID_W'(free_cb_idx);
            end
          end
          OP_UNBIND_CB: begin
            if (!cb_in_range || !cb_bound[req_cb] || cb_binders[req_cb][req_kind] == '0) begin
              rsp_error <= 1'b1;
            end else begin
              cb_binders[req_cb][req_kind] <= cb_binders[req_cb][req_kind] - 1'b1;
              rsp_ok <= 1'b1;
              rsp_id <= ID_W'(req_cb);
              // The other kind's count is unchanged; ours drops to 0 when it was 1.
              if (cb_binders[req_cb][req_kind] == CNT_W'(1) && cb_binders[req_cb][~req_kind] == '0)
              begin
                cb_bound[req_cb] <= 1'b0;
                rsp_flushed <= 1'b1;
              end
            end
          end
          OP_ALLOC_DTB: begin
            if (dtb_sp != '0) begin
              dtb_sp <= dtb_sp - 1'b1;
              dtb_free[dtb_stack[dtb_top]] <= 1'b0;
              rsp_ok <= 1'b1;
              rsp_id <= ID_W'(dtb_stack[dtb_top]);
            end
          end
          OP_FREE_DTB: begin
            if (!dtb_in_range || dtb_free[req_dtb]) begin
              rsp_error <= 1'b1;
            end else begin
              dtb_stack[dtb_sp[DTB_W-1:0]] <= req_dtb;
              dtb_sp <= dtb_sp + 1'b1;
              dtb_free[req_dtb] <= 1'b1;
              rsp_ok <= 1'b1;
              rsp_id <= ID_W'(req_dtb);
            end
          end
          default: rsp_error <= 1'b1;
        endcase
      end
    end
  end

endmodule
