// SPDX-License-Identifier: Apache-2.0
// ns-3 reference for bench/sim_speed_vs_ns3: two nodes on a point-to-point link stream
// fixed-size UDP packets at line rate; prints received packets, simulated and wall time as JSON.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

using namespace ns3;

namespace {

/** Bytes one UDP datagram occupies on a point-to-point wire: payload + UDP + IPv4 + PPP. */
constexpr uint32_t kWireOverheadBytes = 8 + 20 + 2;

}  // namespace

/**
 * Streams --packets datagrams of --size payload bytes from node 0 to node 1 over a
 * --rate link. The client sends one datagram per wire time (rounded up to a whole
 * nanosecond) so the device queue never overflows and every packet arrives.
 */
int main(int argc, char** argv) {
  uint32_t packets = 200000;
  uint32_t size_bytes = 1024;
  std::string rate = "10Gbps";
  std::string delay = "1us";
  CommandLine cmd(__FILE__);
  cmd.AddValue("packets", "UDP datagrams to send", packets);
  cmd.AddValue("size", "UDP payload bytes per datagram", size_bytes);
  cmd.AddValue("rate", "point-to-point link data rate", rate);
  cmd.AddValue("delay", "point-to-point link propagation delay", delay);
  cmd.Parse(argc, argv);

  NodeContainer nodes;
  nodes.Create(2);
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute("DataRate", StringValue(rate));
  p2p.SetChannelAttribute("Delay", StringValue(delay));
  NetDeviceContainer devices = p2p.Install(nodes);
  InternetStackHelper stack;
  stack.Install(nodes);
  Ipv4AddressHelper address;
  address.SetBase("10.1.1.0", "255.255.255.0");
  Ipv4InterfaceContainer interfaces = address.Assign(devices);

  const uint16_t port = 9;
  UdpServerHelper server(port);
  ApplicationContainer server_apps = server.Install(nodes.Get(1));
  server_apps.Start(Seconds(0));

  // Line rate including headers: a faster interval would fill the queue and drop packets.
  const double wire_bits = 8.0 * (size_bytes + kWireOverheadBytes);
  const double bits_per_ns = DataRate(rate).GetBitRate() / 1e9;
  const auto interval_ns = static_cast<uint64_t>(wire_bits / bits_per_ns + 0.999999);
  UdpClientHelper client(interfaces.GetAddress(1), port);
  client.SetAttribute("MaxPackets", UintegerValue(packets));
  client.SetAttribute("Interval", TimeValue(NanoSeconds(interval_ns)));
  client.SetAttribute("PacketSize", UintegerValue(size_bytes));
  ApplicationContainer client_apps = client.Install(nodes.Get(0));
  client_apps.Start(Seconds(0));

  // No stop times: Run() returns when the last datagram has been received.
  const auto wall_start = std::chrono::steady_clock::now();
  Simulator::Run();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const int64_t sim_time_ns = Simulator::Now().GetNanoSeconds();
  const uint64_t received = DynamicCast<UdpServer>(server_apps.Get(0))->GetReceived();
  Simulator::Destroy();

  std::printf(
      "{\"ns3_version\": \"3.37\", \"packets_sent\": %u, \"packets_received\": %llu, "
      "\"size_bytes\": %u, \"rate\": \"%s\", \"interval_ns\": %llu, \"sim_time_ns\": %lld, "
      "\"wall_time_s\": %.6f}\n",
      packets, static_cast<unsigned long long>(received), size_bytes, rate.c_str(),
      static_cast<unsigned long long>(interval_ns), static_cast<long long>(sim_time_ns), wall_s);
  return received == packets ? 0 : 1;
}
