//! The README shows the command line as the binary prints it (`mcp-memory -h`), so the two
//! cannot drift apart.

use std::process::Command;

#[test]
fn the_readme_shows_the_command_line_help_the_binary_prints() {
    let readme = include_str!("../../../README.md");
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
