// SPDX-License-Identifier: Apache-2.0
// Receive DMA sequencer: splits a received frame into cache-line writes, body lines first in
// ascending order, and the first line (16-byte frame header + payload start) last.
//
// The first line carries the frame's valid flag, so the host may only see it once the body
// is coherent: the first line issues only after every body write has been acknowledged on
// wr_ack (body_coherent high). A frame of at most one line is a single write.
//
// Cycle behaviour (mirrored exactly by hw/rtl/rx_dma_sequencer_model.cc); every output is a
// function of registers only:
//   IDLE       start_ready=1; start_valid latches base, total = 16 + len and the line size
//              (128 if start_line_bytes == 128, else 64); next state BODY, or FIRST when
//              total <= line.
//   BODY       presents body line base+off (off = line, 2*line, ...), bytes =
//              min(line, total-off); each write accepted (wr_valid && wr_ready) advances to
//              the next line, and after the last body line to FIRST.
//   FIRST      wr_valid = body_coherent (no body write outstanding); the write is base,
//              min(total, line) bytes, is_first_line=1; once accepted, LAST.
//   LAST       waits for the first line's ack; when nothing is outstanding, done=1 for
//              this one cycle and the next state is IDLE.
// wr_ack acknowledges one write issued in an earlier cycle; an ack with nothing outstanding
// is ignored and raises ack_error in the next cycle.
module rx_dma_sequencer #(
    parameter int ADDR_W = 64,
    parameter int LEN_W = 16,
    localparam int TOTAL_W = LEN_W + 1
) (
    input  logic              clk,
    /** Synchronous reset, active low: back to IDLE, nothing outstanding. */
    input  logic              rst_n,
    input  logic              start_valid,
    output logic              start_ready,
    /** Host address of the receive frame (cache-line aligned). */
    input  logic [ADDR_W-1:0] start_base,
    /** Payload bytes behind the 16-byte receive frame header. */
    input  logic [ LEN_W-1:0] start_len,
    /** Cache line size: 128, anything else means 64. */
    input  logic [       7:0] start_line_bytes,
    output logic              wr_valid,
    input  logic              wr_ready,
    output logic [ADDR_W-1:0] wr_addr,
    output logic [       7:0] wr_bytes,
    output logic              wr_is_first_line,
    /** One write (issued in an earlier cycle) has reached the point of coherence. */
    input  logic              wr_ack,
    /** Every body write issued so far has been acknowledged. */
    output logic              body_coherent,
    /** The frame is complete: the first line has been acknowledged (one-cycle pulse). */
    output logic              done,
    /** An ack arrived with no write outstanding (one-cycle pulse, the cycle after). */
    output logic              ack_error
);

  typedef enum logic [1:0] {
    S_IDLE  = 2'd0,
    S_BODY  = 2'd1,
    S_FIRST = 2'd2,
    S_LAST  = 2'd3
  } state_t;

  localparam int HEADER_BYTES = 16;

  state_t state;
  logic [ADDR_W-1:0] base;
  logic [TOTAL_W-1:0] total;
  logic [TOTAL_W-1:0] off;
  logic line_128;
  logic [TOTAL_W-1:0] outstanding;

  wire [TOTAL_W-1:0] line = line_128 ? TOTAL_W'(128) : TOTAL_W'(64);
  wire [TOTAL_W-1:0] body_left = total - off;
  wire [TOTAL_W-1:0] start_total = TOTAL_W'(start_len) + TOTAL_W'(HEADER_BYTES);
  wire [TOTAL_W-1:0] start_line = (start_line_bytes == 8'd128) ? TOTAL_W'(128) : TOTAL_W'(64);
  wire [TOTAL_W:0] next_off = {1'b0, off} + {1'b0, line};
  wire issue = wr_valid && wr_ready;
  wire ack_ok = wr_ack && outstanding != '0;

  always_comb begin
    wr_valid = 1'b0;
    wr_addr = base;
    wr_bytes = '0;
    wr_is_first_line = 1'b0;
    case (state)
      S_BODY: begin
        wr_valid = 1'b1;
        wr_addr = base + ADDR_W'(off);
        wr_bytes = 8'((body_left < line) ? body_left : line);
      end
      S_FIRST: begin
        wr_valid = body_coherent;
        wr_bytes = 8'((total < line) ? total : line);
        wr_is_first_line = 1'b1;
      end
      default: ;
    endcase
  end

  assign start_ready = state == S_IDLE;
  assign body_coherent = outstanding == '0;
  assign done = state == S_LAST && outstanding == '0;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      state <= S_IDLE;
      base <= '0;
      total <= '0;
      off <= '0;
      line_128 <= 1'b0;
      outstanding <= '0;
      ack_error <= 1'b0;
    end else begin
      ack_error <= wr_ack && !ack_ok;
      outstanding <= outstanding + TOTAL_W'(issue) - TOTAL_W'(ack_ok);
      case (state)
        S_IDLE: begin
          if (start_valid) begin
            base <= start_base;
            total <= start_total;
            line_128 <= start_line_bytes == 8'd128;
            off <= start_line;
            state <= (start_total <= start_line) ? S_FIRST : S_BODY;
          end
        end
        S_BODY: begin
          if (issue) begin
            off <= next_off[TOTAL_W-1:0];
            if (next_off >= {1'b0, total}) state <= S_FIRST;
          end
        end
        S_FIRST: if (issue) state <= S_LAST;
        S_LAST: if (done) state <= S_IDLE;
        default: state <= S_IDLE;
      endcase
    end
  end

endmodule
