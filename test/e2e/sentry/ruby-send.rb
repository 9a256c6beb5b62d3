# Sends one exception per user id and one message with Debian's ruby-sentry-raven (3.1.2).
# Usage: ruby ruby-send.rb <dsn> <user ids, comma-separated>
# Exits non-zero when the transport reported a failure (raven logs the server's answer on stderr).
require "json"
require "logger"
require "raven"

dsn = ARGV[0]
users = ARGV[1].split(",")
failures = []

Raven.configure do |config|
  config.dsn = dsn
  config.release = "svc-e2e@1.2.3"
  config.current_environment = "e2e"
  config.server_name = "e2e-host"
  config.async = false
  config.logger = Logger.new($stderr)
  config.transport_failure_callback = ->(event, error) { failures << [event, error] }
end

def divide(a, b)
  a / b
end

def checkout
  divide(1, 0)
end

users.each do |id|
  Raven.user_context(id: id, email: "user#{id}@example.com")
  Raven.tags_context(feature: "checkout")
  begin
    checkout
  rescue ZeroDivisionError => e
    Raven.capture_exception(e)
  end
end
Raven.user_context(id: users[0], email: "user#{users[0]}@example.com")
Raven.capture_message("svc e2e message from raven-ruby", level: "warning")

puts "raven-ruby #{Raven::VERSION}"
unless failures.empty?
  warn "transport failures: #{failures.length}"
  exit 3
end
