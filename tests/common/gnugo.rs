//! GNU Go 3.8 over GTP, the oracle of the Go tests that need a second engine's judgment.

use std::time::Duration;

use parmcts::gtp::client::{ClientError, GtpClient};

/// Starts GNU Go (`--chinese-rules` and `extra` arguments), or says why not (`None`:
/// skip). GNU Go is `$PARMCTS_GNUGO`, else `gnugo` on the `PATH`, else `/usr/games/gnugo`
/// (where Debian puts it). Without it a test prints why and passes, unless
/// `PARMCTS_REQUIRE_GNUGO=1` (CI), where it fails.
pub fn gnugo(extra: &[&str]) -> Option<GtpClient> {
    let required = std::env::var("PARMCTS_REQUIRE_GNUGO").is_ok_and(|v| v == "1");
    // Debian installs it in /usr/games, often not on the PATH; PARMCTS_GNUGO names another.
    let programs = [std::env::var("PARMCTS_GNUGO").unwrap_or_else(|_| "gnugo".into()), "/usr/games/gnugo".into()];
    let args: Vec<&str> = ["--mode", "gtp", "--chinese-rules"].into_iter().chain(extra.iter().copied()).collect();
    let timeout = Duration::from_secs(30);
    let spawned =
        GtpClient::spawn(&programs[0], &args, timeout).or_else(|_| GtpClient::spawn(&programs[1], &args, timeout));
    match spawned {
        Ok(mut client) => match client.send("protocol_version") {
            Ok(_) => Some(client),
            Err(e) if !required => {
                println!("SKIPPED: gnugo does not answer GTP ({e})");
                None
            }
            Err(e) => panic!("PARMCTS_REQUIRE_GNUGO=1 but gnugo does not answer GTP: {e}"),
        },
        Err(e @ ClientError::Spawn { .. }) if !required => {
            println!("SKIPPED: {e} (install GNU Go: apt-get install gnugo)");
            None
        }
        Err(e) => panic!("PARMCTS_REQUIRE_GNUGO=1 but {e}"),
    }
}
