//! The README shows the command line as the binary prints it (`mcp-memory -h`) and each
//! profile's tools as the binary lists them, so the two cannot drift apart.

use std::process::Command;

use crate::common::{initialize, request, serve_as};

const README: &str = include_str!("../../../README.md");

#[test]
fn the_readme_shows_the_command_line_help_the_binary_prints() {
    let readme = README;
    let start = readme
        .find("## Command line\n\n```text\n")
        .expect("README has a Command line section with a text block")
        + "## Command line\n\n```text\n".len();
    let block = &readme[start..start + readme[start..].find("```").expect("the block ends")];
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .arg("-h")
        .output()
        .expect("the binary starts");
    let help = String::from_utf8(out.stdout).expect("help is UTF-8");
    assert_eq!(block.trim_end(), help.trim_end());
}

/// The tools a profile lists, in order (`tools/list` of the binary under that profile).
fn listed(profile: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let list = request(1, "tools/list", serde_json::json!({}));
    let (replies, _) = serve_as(
        profile,
        &dir.path().join("m.mcpmem"),
        &[initialize(0), list],
    );
    let reply = replies.last().expect("a reply");
    (reply["result"]["tools"].as_array().expect("tools").iter())
        .map(|t| t["name"].as_str().expect("a name").to_string())
        .collect()
}

/// The tool names of the README's table under `heading`, in order.
fn tabled(heading: &str) -> Vec<String> {
    let at = README
        .find(heading)
        .unwrap_or_else(|| panic!("README has a table under {heading:?}"));
    (README[at..].lines())
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| l.split('`').next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_readme_tables_each_profiles_tools_as_the_binary_lists_them() {
    let default = tabled("### Tools of `default`");
    assert_eq!(default, listed("default"), "default");
    assert_eq!(
        default[..9],
        listed("reference"),
        "the reference's nine come first"
    );
    for profile in ["rust", "memory-mcp", "mcp-memory-py"] {
        let heading = format!("Tools of <code>{profile}</code>");
        assert_eq!(tabled(&heading), listed(profile), "{profile}");
    }
}
