#ifndef COMMANDS_H
#define COMMANDS_H
/*
 * The subcommands of lab. Each cmd_* gets argv with argv[0] being the
 * subcommand's name, parses its own options, prints its own output and
 * returns the process exit status.
 */
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_bisect_step(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_recipe(int argc, char **argv);
int cmd_nightly(int argc, char **argv);
int cmd_target(int argc, char **argv);

#endif
